#!/bin/bash
# `make install DESTDIR=... PREFIX=/usr`, then what the installed files do:
# the binaries say the VERSION file's version and run the demo session
# (attach to demo_reader, backtrace, a breakpoint hit, detach); both man
# pages render with no warnings and document exactly the options --help
# lists; the bash completions load and complete; `make uninstall` removes
# everything it installed.
. "$(dirname "$0")/../lib/e2e.sh"

ROOT=$WORK/root
VERSION=$(cat "$TOP/VERSION")

make -s -C "$TOP" install DESTDIR="$ROOT" PREFIX=/usr >"$WORK/install.out" 2>&1 ||
	bail "make install failed: $(cat "$WORK/install.out")"
for f in bin/utraced bin/ustrace share/man/man1/utraced.1 share/man/man1/ustrace.1 \
	lib/systemd/system/utraced.service share/bash-completion/completions/utraced \
	share/bash-completion/completions/ustrace; do
	ok "installed /usr/$f" test -f "$ROOT/usr/$f"
done
like "$(cat "$ROOT/usr/lib/systemd/system/utraced.service")" '^ExecStart=/usr/bin/utraced --mount ' \
	'the unit runs the installed binary'

# --- versions: one source of truth
is "$("$ROOT/usr/bin/utraced" --version)" "utraced $VERSION" 'utraced --version: the VERSION file'
like "$("$ROOT/usr/bin/ustrace" -V)" "version $VERSION\$" 'ustrace -V: the VERSION file'
if [[ -f $TOP/debian/changelog ]]; then
	like "$(head -1 "$TOP/debian/changelog")" "^utraced \\($VERSION(-[0-9.]+)?\\) " \
		'debian/changelog: the same version'
fi

# --- the demo session, with the installed binaries
PROG=$INFDIR/demo_reader
reader_ready "$PROG"
SERVER=$ROOT/usr/bin/utraced
start_server --attach :0 "$READER_PID" || bail "installed utraced did not attach"
remote_gdb_bg "$WORK/gdb.out" "$PROG" bt 'print lines_seen' 'break say' continue bt delete detach
wait_until file_has "$WORK/gdb.out" '^Breakpoint 1 at ' || diag "gdb: $(cat "$WORK/gdb.out")"
sleep 0.5
feed_reader 'second line'
wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/gdb.out")
like "$GDB_OUT" '^#[0-9]+ .* in read_line ' 'installed utraced: backtrace in read_line'
like "$GDB_OUT" '^\$1 = 1$' 'installed utraced: print a global'
like "$GDB_OUT" '^Breakpoint 1, say ' 'installed utraced: breakpoint hit'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $READER_PID\\) detached\\]" 'installed utraced: detached'
feed_reader 'third line'
ok 'the program runs on after detach' reader_says '^demo> got: third line'

# --- installed ustrace traces a program
UST_OUT=$("$ROOT/usr/bin/ustrace" -e trace=write /bin/echo hi 2>&1 >/dev/null)
like "$UST_OUT" '^write\(1, "hi\\n", 3\) += 3$' 'installed ustrace: traces write()'

# --- man pages: render without warnings, lint clean, options as --help
for page in utraced ustrace; do
	man_file=$ROOT/usr/share/man/man1/$page.1
	err=$(MANWIDTH=80 man -l "$man_file" 2>&1 >"$WORK/$page.txt")
	is "$err" '' "man -l $page.1: no warnings"
	like "$(cat "$WORK/$page.txt")" "^NAME" "man -l $page.1: renders"
	if command -v mandoc >/dev/null; then
		is "$(mandoc -T lint -W warning "$man_file" 2>&1)" '' "mandoc -T lint $page.1: clean"
	else
		skip 1 "mandoc not installed"
	fi
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS 'COMM FORMS' ENVIRONMENT FILES SECURITY \
		'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
		like "$(cat "$WORK/$page.txt")" "^$sec\$" "$page.1: section $sec"
	done
done

# options_of TEXT: every option word (-x, --long) in TEXT, one a line, sorted.
options_of() {
	grep -oE -- '(^|[][ ,|{(])--?[a-zA-Z][-a-zA-Z]*' <<<"$1" | sed 's/^[][ ,|{(]*//' | sort -u
}
# the man page's options: only its OPTIONS section, as rendered
man_options() {
	sed -n '/^OPTIONS$/,/^[A-Z]/p' "$WORK/$1.txt" | sed 's/‐/-/g'
}
help_u=$(options_of "$("$ROOT/usr/bin/utraced" --help)")
man_u=$(options_of "$(man_options utraced)")
is "$man_u" "$help_u" 'utraced.1 OPTIONS: the options of --help, no more, no less'
# ustrace: -h lists the short options (its usage lines left out), the long ones are in its table
help_s=$(options_of "$("$ROOT/usr/bin/ustrace" -h | grep '^  ') $(sed -n 's/^\t{"\([a-z-]*\)".*/--\1/p' \
	"$TOP/src/ustrace/ustrace_opts.c")")
man_s=$(options_of "$(man_options ustrace)")
is "$man_s" "$help_s" 'ustrace.1 OPTIONS: the options of -h and the long options, no more, no less'

# --- bash completion: the installed scripts load and complete
# complete_words SCRIPT LINE: the words bash completion offers for LINE
# (the cursor at its end), one a line, sorted.
complete_words() {
	bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion || exit 1
		. "$1" || exit 1
		COMP_LINE=$2 COMP_POINT=${#2}
		read -ra COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		"$(complete -p "${COMP_WORDS[0]}" | sed "s/.*-F \([^ ]*\) .*/\1/")" \
			"${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$1" "$2"
}
if [[ -r /usr/share/bash-completion/bash_completion ]]; then
	BC=$ROOT/usr/share/bash-completion/completions
	ok 'completion: utraced loads' bash --norc -c ". /usr/share/bash-completion/bash_completion && . $BC/utraced && complete -p utraced >/dev/null"
	ok 'completion: ustrace loads' bash --norc -c ". /usr/share/bash-completion/bash_completion && . $BC/ustrace && complete -p ustrace >/dev/null"
	is "$(complete_words "$BC/utraced" 'utraced --mu')" '--multi' 'utraced --mu<TAB>: --multi'
	is "$(complete_words "$BC/utraced" 'utraced --step-over=in')" 'in-place' 'utraced --step-over=in<TAB>'
	like "$(complete_words "$BC/utraced" "utraced --attach :0 ")" "^$$\$" 'utraced --attach COMM <TAB>: pids'
	is "$(complete_words "$BC/ustrace" 'ustrace --follow')" '--follow-forks' 'ustrace --follow<TAB>'
	like "$(complete_words "$BC/ustrace" 'ustrace --trace=clos')" '^close$' 'ustrace --trace=clos<TAB>'
	like "$(complete_words "$BC/ustrace" 'ustrace -e trace=open')" '^openat$' 'ustrace -e trace=open<TAB>: syscall names'
	like "$(complete_words "$BC/ustrace" 'ustrace -e trace=%n')" '^%network$' 'ustrace -e trace=%n<TAB>: classes'
	is "$(complete_words "$BC/ustrace" 'ustrace -e signal=SIGTE')" 'SIGTERM' 'ustrace -e signal=SIGTE<TAB>: signal names'
	like "$(complete_words "$BC/ustrace" 'ustrace -p ')" "^$$\$" 'ustrace -p <TAB>: pids'
else
	skip 11 'bash-completion not installed'
fi

# --- uninstall leaves nothing behind
make -s -C "$TOP" uninstall DESTDIR="$ROOT" PREFIX=/usr >"$WORK/uninstall.out" 2>&1
is "$(find "$ROOT" -type f)" '' 'make uninstall: no file left'

done_testing
