package replica

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/examplerun"
	"github.com/vane-http/vane/internal/testtool"
)

// cluster is a PostgreSQL cluster of the test's own, on 127.0.0.1, that
// it may stop and start without disturbing other tests' databases.
type cluster struct {
	bin, data, port string
	URL             string
}

// startCluster makes and starts a cluster in a new directory; it is
// stopped and removed when t ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	bin := postgresBin(t)
	dir, err := os.MkdirTemp("/var/tmp", "vane-replica-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{bin: bin, data: filepath.Join(dir, "data"), port: freePort(t)}
	t.Cleanup(func() {
		c.pgctl("stop", "-m", "immediate") //nolint:errcheck // it may be stopped already
		os.RemoveAll(dir)
	})
	if asRoot() {
		if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	if out, err := c.run(filepath.Join(bin, "initdb"), "--pgdata="+c.data, "--username=vane", "--auth=trust", "--encoding=UTF8", "--locale=C"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.Start(t)
	c.URL = "postgres://vane@127.0.0.1:" + c.port + "/postgres?sslmode=disable"
	return c
}

// Start starts the cluster and waits until it accepts connections.
func (c *cluster) Start(t *testing.T) {
	t.Helper()
	if out, err := c.pgctl("start", "--wait", "--timeout=60", "--log="+filepath.Join(filepath.Dir(c.data), "server.log"),
		"-o", "-c listen_addresses=127.0.0.1 -p "+c.port+" -k "+filepath.Dir(c.data)+" -c fsync=off -c max_connections=200"); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

// Stop stops the cluster as a restart does (fast: open sessions are ended).
func (c *cluster) Stop(t *testing.T) {
	t.Helper()
	if out, err := c.pgctl("stop", "--wait", "-m", "fast"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

func (c *cluster) pgctl(args ...string) ([]byte, error) {
	return c.run(filepath.Join(c.bin, "pg_ctl"), append([]string{"--pgdata=" + c.data}, args...)...)
}

// run runs a PostgreSQL program as the cluster's owner: "postgres" when
// the test runs as root (the server refuses root), else the test's user.
func (c *cluster) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(prog, args...)
	if asRoot() {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", prog}, args...)...)
	}
	return cmd.CombinedOutput()
}

func asRoot() bool { return os.Geteuid() == 0 }

// postgresBin finds the server's programs: Debian's newest version, or
// those on PATH.
func postgresBin(t *testing.T) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	testtool.Unavailable(t, "the replica test needs PostgreSQL's server programs (initdb, pg_ctl)")
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// balancer is HAProxy in front of the replicas: round robin, each replica
// checked on /readyz every 100 ms, taken out after two failed checks (one
// slow check under load does not take out a replica that serves) and back
// after one good one.
type balancer struct {
	URL    string
	cmd    *exec.Cmd
	out    bytes.Buffer
	socket string // HAProxy's stats socket
}

func startBalancer(t *testing.T, replicas ...*examplerun.Service) *balancer {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		testtool.Unavailable(t, "the replica test needs HAProxy (Debian's haproxy)")
	}
	port := freePort(t)
	var servers strings.Builder
	for i, r := range replicas {
		fmt.Fprintf(&servers, "  server r%d %s check\n", i, strings.TrimPrefix(r.URL, "http://"))
	}
	dir := t.TempDir()
	socket := filepath.Join(dir, "haproxy.sock")
	config := `global
  maxconn 2000
  stats socket ` + socket + `
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch
  option forwardfor
  retry-on conn-failure empty-response
frontend api
  bind 127.0.0.1:` + port + `
  # A request that may have reached a replica is sent again only when a
  # second copy cannot write twice: a safe method, or an unsafe one with
  # an Idempotency-Key (answered with the first outcome). A connection
  # that failed before the request was sent is retried for every method.
  http-request disable-l7-retry if !METH_GET !METH_HEAD !METH_OPTIONS !{ req.hdr(idempotency-key) -m found }
  default_backend replicas
backend replicas
  balance roundrobin
  option http-server-close
  option httpchk GET /readyz
  http-check expect status 200
  timeout check 2s
  default-server inter 100ms fall 2 rise 1
` + servers.String()
	file := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &balancer{URL: "http://127.0.0.1:" + port, socket: socket}
	b.cmd = exec.Command(haproxy, "-db", "-f", file)
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		b.cmd.Dir = dir
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.cmd.Process.Kill()
		b.cmd.Wait()
	})
	deadline := time.Now().Add(time.Minute) // generous for a loaded machine; it serves in milliseconds
	for time.Now().Before(deadline) {
		if res, err := http.Get(b.URL + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return b
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("HAProxy did not serve /readyz within a minute:\n%s", b.out.String())
	return nil
}

// waitUp waits until HAProxy's health checks have put replica i (of the
// order given to startBalancer) in rotation: its status on the stats
// socket is UP. A rolling restart waits for that before it takes down the
// next replica, as an orchestrator waits for readiness; it returns how
// long it waited, and t fails after a minute (generous for a loaded
// machine; HAProxy's checks take milliseconds).
func (b *balancer) waitUp(t *testing.T, i int) time.Duration {
	t.Helper()
	name := "r" + strconv.Itoa(i)
	start := time.Now()
	status := ""
	for time.Since(start) < time.Minute {
		if status = b.status(name); status == "UP" {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("HAProxy did not put replica %s back in rotation within a minute (status %q):\n%s", name, status, b.out.String())
	return 0
}

// status returns the status HAProxy's stats give server name of the
// replicas backend ("UP", "DOWN", "UP 1/2", ...), or "" if it cannot be
// read.
func (b *balancer) status(name string) string {
	conn, err := net.DialTimeout("unix", b.socket, time.Second)
	if err != nil {
		return ""
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("show stat\n")); err != nil {
		return ""
	}
	out, _ := io.ReadAll(conn)
	// A CSV table whose first line names the columns, after "# ";
	// pxname and svname come first.
	lines := strings.Split(string(out), "\n")
	col := slices.Index(strings.Split(strings.TrimPrefix(lines[0], "# "), ","), "status")
	if col < 2 {
		return ""
	}
	for _, line := range lines[1:] {
		if f := strings.Split(line, ","); len(f) > col && f[0] == "replicas" && f[1] == name {
			return f[col]
		}
	}
	return ""
}
