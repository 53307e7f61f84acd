# Sourced by the e2e-* scripts that load a server of bench/cmd/serve with
# wrk: the request wrk sends, and the wait for a server to answer it.

# url_path and auth are the path and the Authorization value of the
# end-to-end request (e2e/service.go's Path and Auth).
url_path=$(grep -o '"/items[^"]*"' e2e/service.go | head -1 | tr -d '"')
auth=$(grep -o 'Auth = "[^"]*"' e2e/service.go | sed 's/Auth = "\(.*\)"/\1/')

# wait_ready PORT PID: waits until the server PID answers the request on
# 127.0.0.1:PORT; fails, naming it, if the process ends or 20 s pass.
wait_ready() {
	local i
	for i in $(seq 100); do
		curl -s -o /dev/null -H "Authorization: $auth" "http://127.0.0.1:$1$url_path" && return 0
		kill -0 "$2" 2>/dev/null || { echo "the server on port $1 exited before it answered" >&2; return 1; }
		sleep 0.2
	done
	echo "the server on port $1 did not answer in 20 s" >&2
	return 1
}
