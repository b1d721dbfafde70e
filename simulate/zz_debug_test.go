package simulate

import (
	"os"
	"strings"
	"testing"
)

func TestZZDebug(t *testing.T) {
	want := os.Getenv("ZZRUN")
	for _, tr := range corpusTraces(t) {
		if !strings.HasPrefix(tr.RunID, want) {
			continue
		}
		t.Logf("%s model %+v prefix %d firstcomp %d comps %+v ops %d", tr.RunID, tr.Tokens, tr.Prefix, tr.FirstCompaction, tr.Compactions, len(tr.Ops))
		al := AsLogged(tr)
		ka := tr.keepAllPrompts()
		for c := range tr.NCalls {
			if tr.Logged[c] > 0 {
				t.Logf("call %3d logged %7d keepall %7d aslogged %7d err %+.3f", c, tr.Logged[c], ka[c], al[c], float64(al[c]-tr.Logged[c])/float64(tr.Logged[c]))
			}
		}
	}
}
