package dashboards

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// gvSpline is one spline of a Graphviz edge's pos attribute: a start point
// and three points per cubic Bézier segment, and the arrowhead's tip at
// its end when there is one.
type gvSpline struct {
	points []pmPoint
	end    pmPoint
	hasEnd bool
}

// parseSpline reads a Graphviz "splineType" (the pos of an edge):
//
//	spline ( ';' spline )*
//	spline = [ "e,x,y" ] [ "s,x,y" ] point ( point point point )+
//
// separated by spaces. A start arrow ("s,x,y") is read and dropped (the
// map draws none). Errors name the spline and the point.
func parseSpline(s string) ([]gvSpline, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no spline")
	}
	var out []gvSpline
	for si, part := range strings.Split(s, ";") {
		var sp gvSpline
		fields := strings.Fields(part)
		for k, f := range fields {
			switch {
			case strings.HasPrefix(f, "e,") || strings.HasPrefix(f, "s,"):
				if len(sp.points) > 0 || (f[0] == 'e' && sp.hasEnd) || (f[0] == 'e' && k > 0) {
					return nil, fmt.Errorf("spline %d, item %d: %q out of place (e,x,y and s,x,y come first)", si+1, k+1, f)
				}
				p, err := parsePoints(f[2:])
				if err != nil || len(p) != 1 {
					return nil, fmt.Errorf("spline %d, item %d: %q is not %c,x,y", si+1, k+1, f, f[0])
				}
				if f[0] == 'e' {
					sp.end, sp.hasEnd = p[0], true
				}
			default:
				p, err := parsePoints(f)
				if err != nil || len(p) != 1 {
					return nil, fmt.Errorf("spline %d, item %d: %q is not x,y", si+1, k+1, f)
				}
				sp.points = append(sp.points, p[0])
			}
		}
		if n := len(sp.points); n < 4 || (n-1)%3 != 0 {
			return nil, fmt.Errorf("spline %d: %d points, want 1 + 3k (k ≥ 1)", si+1, n)
		}
		out = append(out, sp)
	}
	return out, nil
}

// parsePoints reads comma-separated finite numbers as (x, y) pairs: "x,y"
// is one point, "x0,y0,x1,y1" (a bounding box) two.
func parsePoints(s string) ([]pmPoint, error) {
	parts := strings.Split(s, ",")
	if len(parts)%2 != 0 {
		return nil, fmt.Errorf("%q: an odd count of numbers", s)
	}
	out := make([]pmPoint, 0, len(parts)/2)
	for i := 0; i < len(parts); i += 2 {
		x, err := finite(parts[i])
		if err != nil {
			return nil, err
		}
		y, err := finite(parts[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, pmPoint{x, y})
	}
	return out, nil
}

func finite(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return f, nil
}
