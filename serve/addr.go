package serve

import (
	"fmt"
	"net"
	"strings"
)

// ListenAddr is the address trajmine serve listens on for --http addr:
// addr itself, but with no host (":8080") localhost, as pprof's -http
// reads it; every interface is named ("0.0.0.0:8080", "[::]:8080").
func ListenAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("localhost", port)
	}
	return addr
}

// CheckAddr says whether trajmine serve may listen on addr (host:port): a
// loopback host (localhost, 127.0.0.0/8, ::1, or none: ListenAddr)
// always; any other host (every interface, 0.0.0.0, ::, a LAN address or
// another name) only when public is set, because the page and its API
// show the logs to whoever can reach the address.
func CheckAddr(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. localhost:8080): %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("%q names no port (e.g. localhost:8080)", addr)
	}
	if public || host == "" || loopbackHost(host) {
		return nil
	}
	where := "host " + host
	if host == "0.0.0.0" || host == "::" {
		where = "every interface"
	}
	return fmt.Errorf("%s listens on %s: the page shows your logs to whoever can reach it; use localhost:%s, or add --http-public to mean it", addr, where, port)
}

// loopbackHost reports whether host is localhost or a loopback IP address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackRequestHost reports whether a request's Host header (host or
// host:port) names a loopback host: what a browser sends to a local
// server, and not what a DNS-rebinding page's requests carry (its own
// host name).
func loopbackRequestHost(h string) bool {
	host, _, err := net.SplitHostPort(h)
	if err != nil {
		host = h // no port
	}
	return loopbackHost(host)
}
