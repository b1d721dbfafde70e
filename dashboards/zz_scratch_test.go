package dashboards

import (
	"os"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards/browsertest"
)

func TestZZScratch(t *testing.T) {
	js, _ := os.ReadFile(os.Getenv("ZZ_JS"))
	r := browsertest.Load(t, os.Getenv("ZZ_FILE"), &browsertest.Options{Steps: strings.Split(string(js), "\n//----\n")})
	for _, s := range r.Steps {
		t.Log(s)
	}
}
