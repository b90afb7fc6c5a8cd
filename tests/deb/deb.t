#!/bin/bash
# `make check-deb`: builds utraced_*.deb from a copy of the tree with
# dpkg-buildpackage, checks it with lintian, installs it with apt, runs the
# installed utraced (--version, a gdb session) and ustrace, then purges it
# and checks that every file it had installed is gone. Root on Debian 12;
# installs its build and test dependencies with apt-get. Slow (a full
# package build), so not part of `make check`.
. "$(dirname "$0")/../lib/e2e.sh"

[[ $(id -u) == 0 ]] || skip_all 'needs root (apt install)'
dpkg -s utraced >/dev/null 2>&1 && skip_all 'a utraced package is already installed; not touching it'
VERSION=$(cat "$TOP/VERSION")

need=()
for p in dpkg-dev debhelper lintian libzydis-dev libfuse3-dev pkg-config gdb; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
	diag "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >"$WORK/deps.log" 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } \
			>"$WORK/deps.log" 2>&1 || bail "apt-get install ${need[*]} failed"
fi

# --- build, from a copy: dpkg-buildpackage writes beside the tree and cleans it
mkdir -p "$WORK/pkg/utraced"
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp -P --parents -t "$WORK/pkg/utraced") || bail 'copying the tree failed'
(cd "$WORK/pkg/utraced" && dpkg-buildpackage -us -uc -b -j2) >"$WORK/build.log" 2>&1
ok 'dpkg-buildpackage -us -uc -b' test $? = 0 || bail "build failed: $(tail -30 "$WORK/build.log")"
DEB=$WORK/pkg/utraced_${VERSION}_amd64.deb
ok "built $(basename "$DEB")" test -f "$DEB" || bail 'no .deb'
lint=$(lintian --allow-root "$DEB" 2>&1)
unlike "$lint" '^E: ' 'lintian: no errors'
[[ -n $lint ]] && diag "lintian:" "$lint"
like "$(dpkg-deb -f "$DEB" Depends)" 'libfuse3-3.*fuse3' 'Depends: libfuse3-3 (shlibs) and fuse3'

# --- install
purge() { DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq utraced >"$WORK/purge.log" 2>&1; }
trap 'purge; _cleanup' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$DEB" >"$WORK/install.log" 2>&1
ok 'apt install ./utraced_*.deb' test $? = 0 || bail "apt install failed: $(cat "$WORK/install.log")"
FILES=$(dpkg -L utraced | while read -r f; do [[ -f $f ]] && echo "$f"; done)
like "$FILES" '^/usr/bin/utraced$' 'dpkg -L: /usr/bin/utraced'
like "$FILES" '^/lib/systemd/system/utraced.service$' 'dpkg -L: the unit'

is "$(/usr/bin/utraced --version)" "utraced $VERSION" 'installed utraced --version'
like "$(/usr/bin/ustrace -V)" "version $VERSION\$" 'installed ustrace -V'

# --- a gdb session with the installed utraced
# (make check-deb builds breakloop first)
SERVER=/usr/bin/utraced
launch "$INFDIR/breakloop" 3
remote_gdb "$INFDIR/breakloop" 'break bump' continue 'print step' 'print counter' delete continue
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' 'installed utraced: breakpoint hit'
like "$GDB_OUT" '^\$1 = 1$' 'installed utraced: print an argument'
like "$GDB_OUT" '^\$2 = 0$' 'installed utraced: print a global'
exited_with 7 'installed utraced: the program ends'
like "$(/usr/bin/ustrace -e trace=write /bin/echo hi 2>&1 >/dev/null)" '^write\(1, "hi\\n", 3\) += 3$' \
	'installed ustrace traces write()'

# --- remove
purge
ok 'apt-get purge utraced' test $? = 0
ok 'dpkg no longer knows utraced' bash -c '! dpkg -s utraced >/dev/null 2>&1'
left=$(while read -r f; do [[ -e $f ]] && echo "$f"; done <<<"$FILES")
is "$left" '' "every file it installed is gone ($(wc -l <<<"$FILES") files)"
done_testing
