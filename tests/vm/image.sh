#!/bin/bash
# image.sh: builds the guest of `make check-vm` (tests/vm/run.sh) from Debian's
# own packages: a Debian 12 root made by debootstrap, with Debian's kernel
# (linux-image-ARCH: ia32 emulation on, debug registers emulated by QEMU),
# what building and testing utraced needs, and the GDB 13.1 testsuite sources
# with dejagnu for ../shared/gdbts/run.sh. Prints the directory that holds
# root.img, vmlinuz and initrd.img.
#
# The result is cached in $VM_CACHE (default /var/tmp/utraced-vm) under a key
# that is the hash of this script: it is rebuilt when this script changes,
# reused otherwise. Needs root (debootstrap, chroot); installs debootstrap
# and e2fsprogs when they are missing. VM_MIRROR overrides the Debian mirror.
set -euo pipefail
ARCH=${VM_ARCH:-$(dpkg --print-architecture)}
SUITE=bookworm
MIRROR=${VM_MIRROR:-http://deb.debian.org/debian}
CACHE=${VM_CACHE:-/var/tmp/utraced-vm}
# What the guest needs: a kernel, the build (tests/lib/deps.sh lists the
# tests' own needs), prove, the GDB testsuite's runner, and systemd for the
# second boot mode (the packaged unit tried live: tests/vm/guest_systemd.sh).
PKGS=(linux-image-$ARCH initramfs-tools kmod iproute2 procps psmisc util-linux
	gcc g++ make libc6-dev pkg-config libzydis-dev libfuse3-dev fuse3
	gdb gdbserver strace perl dejagnu expect file binutils systemd)
[[ $ARCH == amd64 ]] && PKGS+=(gcc-multilib g++-multilib)

key=$(sha256sum "$0" | cut -c1-16)
dir=$CACHE/$ARCH-$key
if [[ -f $dir/ready ]]; then
	echo "$dir"
	exit 0
fi
log() { echo "image.sh: $*" >&2; }
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
if ((${#need[@]})); then
	"$(dirname "$0")/host_apt.sh" "${need[@]}"
fi

log "building $dir (a few minutes: debootstrap, then ${#PKGS[@]} packages and their dependencies)"
# Older images of this architecture go; a build that was killed may have left
# its mounts (the host's /dev among them), which must go first.
for m in $(findmnt -rno TARGET | grep "^$CACHE/$ARCH-" | sort -r); do umount -l "$m"; done
rm -rf --one-file-system "$CACHE/$ARCH-"*
mkdir -p "$dir" "$CACHE/debs"
root=$dir/root
# debootstrap resolves --include badly (virtual packages): apt-get does the rest.
debootstrap --arch="$ARCH" --variant=minbase --cache-dir="$CACHE/debs" "$SUITE" "$root" "$MIRROR" \
	>"$dir/build.log" 2>&1 || { log "debootstrap failed: see $dir/build.log"; exit 1; }
mounts=("$root/proc" "$root/dev/pts" "$root/dev" "$root/var/cache/apt/archives")
trap 'for m in "${mounts[@]}"; do mountpoint -q "$m" && umount -l "$m"; done' EXIT
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount --bind "$CACHE/debs" "$root/var/cache/apt/archives"
echo "deb $MIRROR $SUITE main" >"$root/etc/apt/sources.list"
{ chroot "$root" apt-get update &&
	DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y --no-install-recommends "${PKGS[@]}"; } \
	>>"$dir/build.log" 2>&1 || { log "apt-get install failed: see $dir/build.log"; exit 1; }
for m in "${mounts[@]}"; do umount -l "$m"; done

# The GDB testsuite, where ../shared/gdbts/run.sh looks for it (GDBSRC).
src=$CACHE/gdb-src
# (apt's own source lists, for this one download: a fresh host has no
# deb-src entry; Debian's container images have none)
if [[ ! -f $src/gdb_13.1.orig.tar.xz ]]; then
	mkdir -p "$src/lists/partial"
	echo "deb-src $MIRROR $SUITE main" >"$src/sources.list"
	aptsrc=(-o Dir::Etc::SourceList="$src/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$src/lists")
	(cd "$src" && apt-get "${aptsrc[@]}" update && apt-get "${aptsrc[@]}" source --download-only gdb) \
		>>"$dir/build.log" 2>&1 || { log "apt-get source gdb failed: see $dir/build.log"; exit 1; }
fi
mkdir -p "$root/var/tmp/gdbsrc"
tar -C "$root/var/tmp/gdbsrc" -xf "$src/gdb_13.1.orig.tar.xz"

echo utraced-vm >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost utraced-vm\n::1\tlocalhost ip6-localhost\n' >"$root/etc/hosts"
# PID 1 of the guest: mounts what a test run needs, the 9p shares of
# tests/vm/run.sh, runs the tree's tests/vm/guest.sh, and powers off. With
# --systemd it is a service of systemd instead (the second boot mode,
# init=/lib/systemd/systemd systemd.unit=utraced-vm.target): systemd has
# mounted the rest, and the tree's tests/vm/guest_systemd.sh runs.
cat >"$root/sbin/utraced-vm-init" <<'INIT'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
script=guest.sh
if [[ ${1:-} == --systemd ]]; then
	script=guest_systemd.sh
else
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs tmp /dev/shm
	mount -t tmpfs -o size=2g tmp /tmp
	mount -o remount,rw /
	ip link set lo up
	hostname utraced-vm
fi
for m in 9pnet_virtio 9p fuse; do modprobe $m; done
mkdir -p /mnt/tree /mnt/out /mnt/gdbts
o=trans=virtio,version=9p2000.L,msize=524288
mount -t 9p -o $o,ro tree /mnt/tree
mount -t 9p -o $o out /mnt/out
mount -t 9p -o $o,ro gdbts /mnt/gdbts 2>/dev/null || rmdir /mnt/gdbts
echo "utraced-vm: $(uname -srm), $(nproc) cpus, $script"
/bin/bash /mnt/tree/tests/vm/$script /mnt/out
echo "utraced-vm: $script exited $?"
sync
[[ $script == guest_systemd.sh ]] && systemctl --no-block poweroff && exit 0
echo o >/proc/sysrq-trigger
sleep 10
INIT
# The second boot mode: systemd as PID 1, only what the tests need started.
cat >"$root/etc/systemd/system/utraced-vm.target" <<'UNIT'
[Unit]
Description=utraced check-vm, systemd mode
Requires=basic.target utraced-vm.service
After=basic.target
AllowIsolate=yes
UNIT
cat >"$root/etc/systemd/system/utraced-vm.service" <<'UNIT'
[Unit]
Description=utraced check-vm: tests/vm/guest_systemd.sh
After=basic.target
[Service]
Type=oneshot
ExecStart=/sbin/utraced-vm-init --systemd
TimeoutStartSec=infinity
StandardOutput=journal+console
StandardError=journal+console
UNIT
chmod 755 "$root/sbin/utraced-vm-init"

cp -L "$root/vmlinuz" "$dir/vmlinuz"
cp -L "$root/initrd.img" "$dir/initrd.img"
# (stdout is the directory's alone: mkfs.ext4 -q still says "Creating regular file")
mkfs.ext4 -q -F -L utraced-vm -d "$root" "$dir/root.img" 8G >&2
rm -rf "$root"
touch "$dir/ready"
log "done"
echo "$dir"
