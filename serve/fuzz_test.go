package serve

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzRunQuery: the run list's filter fields, parsed from any query
// string, never panic; a field is either an error naming it or a value
// that formats back to what was given (numbers) or is kept as given
// (text, trimmed). Seeds: testdata/fuzz/FuzzRunQuery.
func FuzzRunQuery(f *testing.F) {
	f.Add("family=gpt-4o&min_calls=3&max_calls=40&min_peak=80&resolved=true")
	f.Add("model=%27%20OR%201%3D1&text=100%25&tool=bash&end=context_overflow")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		rq, err := runQuery(q)
		if err != nil {
			if !strings.Contains(err.Error(), "min_calls") && !strings.Contains(err.Error(), "max_calls") && !strings.Contains(err.Error(), "min_peak") && !strings.Contains(err.Error(), "resolved") {
				t.Errorf("error names no field: %v", err)
			}
			return
		}
		if v := q.Get("model"); strings.TrimSpace(v) != rq.Model {
			t.Errorf("model %q became %q", v, rq.Model)
		}
		if rq.MinCalls != nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(q.Get("min_calls")), 10, 64); err != nil || n != *rq.MinCalls {
				t.Errorf("min_calls %q became %d", q.Get("min_calls"), *rq.MinCalls)
			}
		}
		if rq.MinPeakShare != nil && *rq.MinPeakShare < 0 {
			t.Errorf("min_peak %q gave a negative share", q.Get("min_peak"))
		}
	})
}

// FuzzCheckAddr: any --http value is accepted or refused without a
// panic, and an address accepted without --http-public is listened on
// (ListenAddr) on a loopback host.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"localhost:8080", ":8080", "[::1]:0", "0.0.0.0:1", "example.com:80", "127.0.0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if CheckAddr(addr, false) != nil {
			return
		}
		host, _, err := net.SplitHostPort(ListenAddr(addr))
		if err != nil || !loopbackHost(host) {
			t.Errorf("%q accepted on host %q", addr, host)
		}
		if CheckAddr(addr, true) != nil {
			t.Errorf("%q accepted, then refused with --http-public", addr)
		}
	})
}
