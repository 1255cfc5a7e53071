extension SupervisedProcess {
    /// The wrapper every supervised command runs under:
    /// `bash --norc --noprofile -c lifeline blerig-lifeline GRACE_TICKS CMD ARGS…`.
    ///
    /// Its standard input is the *lifeline*, a socket whose other end only the parent holds and never writes
    /// to. The kernel closes that end when the parent exits for any reason (a trap, SIGKILL, an OOM kill), so a
    /// read of the lifeline returning end-of-file means "the parent is gone, or wants you gone". PR_SET_PDEATHSIG
    /// would be simpler but fires when the *thread* that spawned the child exits, which a Swift thread pool
    /// does whenever it likes.
    ///
    /// The wrapper is the leader of a new process group (posix_spawn's SETPGROUP), which the command and
    /// everything it starts join (rootcanal's `python -m rootcanal` runs the real binary as a grandchild).
    ///
    /// 1. It closes every inherited descriptor above 3, so no other child's lifeline can be kept open by this
    ///    one (two of them holding each other's would never see end-of-file), then starts the command with the
    ///    lifeline as its standard input too (the Bumble peers watch it themselves).
    /// 2. A watcher subshell blocks reading the lifeline and, at end-of-file, signals the wrapper (USR1, repeated
    ///    until the wrapper is gone, so no signal lands between a check and a wait).
    /// 3. The wrapper waits for the command. If the command ends on its own, the wrapper ends the watcher and
    ///    exits with the command's status (128 + N for signal N). If the lifeline ended, it sends SIGTERM to the
    ///    whole group (ignoring it itself), waits up to GRACE_TICKS × 10 ms for the command to go, then sends
    ///    SIGKILL to the whole group, itself included.
    ///
    /// Debian's bash (essential, always installed) is used for `read -u`, `((…))` and `$(<file)`.
    static let lifelineScript = #"""
        grace_ticks=$1; shift
        fds=(/proc/$$/fd/*)
        for fd in "${fds[@]##*/}"; do [[ $fd =~ ^[0-9]+$ ]] && ((fd > 3)) && exec {fd}>&-; done
        exec 3<&0 0</dev/null
        closed=0
        trap 'closed=1' USR1
        "$@" 0<&3 3<&- &
        child=$!
        { trap - USR1; while read -r -u 3 _; do :; done; while kill -USR1 $$ 2>/dev/null; do sleep 0.1; done; } &
        watcher=$!
        exec 3<&-
        alive() { local s; s=$(<"/proc/$child/stat") || return 1; s=${s##*) }; [ "${s%% *}" != Z ]; }
        while [ $closed = 0 ]; do
          wait "$child"; status=$?
          [ $closed = 0 ] || break
          kill -KILL "$watcher" 2>/dev/null
          exit "$status"
        done
        trap '' TERM
        kill -TERM 0
        for ((i = 0; i < grace_ticks; i++)); do alive 2>/dev/null || break; sleep 0.01; done
        kill -KILL 0
        """#
}
