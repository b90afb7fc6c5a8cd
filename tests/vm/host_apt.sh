#!/bin/bash
# host_apt.sh PKG...: installs on the host what tests/vm/run.sh and image.sh
# need and do not find. A fresh machine is often busy with apt when the lane
# starts (its first boot's updates, another job installing its own needs):
# wait for apt's locks instead of failing at once.
set -euo pipefail
((EUID == 0)) || { echo "host_apt.sh: root needed to install $*" >&2; exit 1; }
echo "host_apt.sh: installing $*" >&2
opt=(-o DPkg::Lock::Timeout=900 -o Acquire::Retries=3)
for try in 1 2 3 4 5 6; do
	apt-get "${opt[@]}" update -qq >/dev/null && break
	((try < 6)) || exit 1
	echo "host_apt.sh: apt-get update failed (a lock?), again in 30 s" >&2
	sleep 30
done
DEBIAN_FRONTEND=noninteractive apt-get "${opt[@]}" install -y -qq --no-install-recommends "$@" >/dev/null
