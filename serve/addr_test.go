package serve

import (
	"strings"
	"testing"
)

// TestCheckAddr: a loopback address is allowed; every other (every
// interface, a LAN address, another name) is refused unless public, with
// a message saying where it would listen and how to mean it.
func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
		err    string // "" allowed
	}{
		{"localhost:8080", false, ""},
		{"LOCALHOST:8080", false, ""},
		{"127.0.0.1:0", false, ""},
		{"127.0.0.2:80", false, ""},
		{"[::1]:8080", false, ""},
		{":8080", false, ""}, // localhost:8080 (ListenAddr), as pprof's -http :8080
		{"0.0.0.0:8080", false, "0.0.0.0:8080 listens on every interface: the page shows your logs to whoever can reach it; use localhost:8080, or add --http-public to mean it"},
		{"[::]:8080", false, "listens on every interface"},
		{"192.168.1.5:8080", false, "listens on host 192.168.1.5"},
		{"example.com:80", false, "listens on host example.com"},
		{"0.0.0.0:8080", true, ""},
		{"192.168.1.5:8080", true, ""},
		{"localhost", false, "is not host:port"},
		{"localhost:", false, "names no port"},
	}
	for _, tc := range tests {
		err := CheckAddr(tc.addr, tc.public)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s (public %v): %v", tc.addr, tc.public, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s (public %v): err = %v, want one with %q", tc.addr, tc.public, err, tc.err)
		}
	}
}

// TestLoopbackRequestHost: the Host headers a browser sends to a local
// server pass; a rebinding page's own name does not.
func TestLoopbackRequestHost(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost:8080": true, "localhost": true, "127.0.0.1:8080": true, "[::1]:8080": true, "[::1]": true,
		"evil.example:8080": false, "evil.example": false, "localhost.evil.example:8080": false, "192.168.1.5:8080": false, "": false,
	} {
		if got := loopbackRequestHost(h); got != want {
			t.Errorf("Host %q: %v, want %v", h, got, want)
		}
	}
}

// TestListenAddr: an address without a host is localhost's, as pprof's
// -http reads it; every other address is listened on as given.
func TestListenAddr(t *testing.T) {
	for addr, want := range map[string]string{
		":8080": "localhost:8080", ":0": "localhost:0", "localhost:9000": "localhost:9000", "127.0.0.1:1": "127.0.0.1:1",
		"0.0.0.0:8080": "0.0.0.0:8080", "[::]:8080": "[::]:8080", "[::1]:80": "[::1]:80", "localhost": "localhost",
	} {
		if got := ListenAddr(addr); got != want {
			t.Errorf("ListenAddr(%q) = %q, want %q", addr, got, want)
		}
	}
}
