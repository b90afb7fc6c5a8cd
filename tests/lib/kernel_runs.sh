#!/bin/bash
# kernel_runs.sh DIR: succeeds when this kernel runs the test programs of DIR.
# A 64-bit kernel may refuse 32-bit programs (ENOEXEC) although it was built
# with IA32 emulation: ia32_emulation=off on its command line, or a guest
# (PVM) that disables it at boot ("32-bit emulation disabled" in dmesg).
# demo_reader exits at once on an empty stdin.
[[ -x $1/demo_reader ]] && "$1/demo_reader" </dev/null >/dev/null 2>&1
