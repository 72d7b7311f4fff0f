# Shell helpers of the bench scripts that drive daemons by hand
# (es-bulk.sh, http.sh); sourced, not run.

# ticks PID: the process's CPU so far (user + system), in clock ticks
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wait_listening PORT NAME LOG: until 127.0.0.1:PORT takes a connection;
# after 10 s, says NAME is not listening, shows LOG and exits
wait_listening() {
  _wl=0
  until python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()" \
      "$1" 2>/dev/null; do
    _wl=$((_wl + 1))
    [ $_wl -lt 100 ] || { echo "$2: not listening on $1"; cat "$3"; exit 1; }
    sleep 0.1
  done
}
