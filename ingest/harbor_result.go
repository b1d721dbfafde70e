package ingest

import (
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// formatHarborResult is the Harbor results importer.
const formatHarborResult = "harbor-result"

// harborResult reads Harbor's results (the jobs/<job>/ tree of `harbor
// run`, whose trials hold the agent's logs: <trial>/agent/trajectory.json
// for terminus-2's ATIF), an outcome file (outcomes.go). Every row is a
// path row keyed by the trial's name, which matches the runs whose files
// lie in the trial's folder; the reward is the score, and a reward of 1
// (or more) is resolved, 0 (or less) not, one in between only a score:
//
//   - a trial's result.json {"task_name", "trial_name", "verifier_result":
//     {"rewards": {"reward": 1.0}}, "exception_info", …} (older Harbor:
//     "verifier_result": {"reward": …}): its trial_name (else its folder's
//     name); no verifier result (the trial failed before its verifier
//     ran) is no outcome, and an exception is named in the detail;
//   - a job's result.json {"n_total_trials", "stats": {"evals": {"<agent>
//     __<model>__<dataset>": {"reward_stats": {"reward": {"1.0": [trial
//     names …], "0.0": […]}}}}}}: a row per trial name listed;
//   - a verifier's reward.json (<trial>/verifier/reward.json, {"reward":
//     1.0}, or one number under another name): keyed by the trial folder.
//
// A reward.json's bytes are the same for every trial with the same reward,
// so files of this format are told apart by their path (PathKeyed).
type harborResult struct {
	formatInfo
	outcomeInfo
	placeKeyed
}

// Detect accepts a trial's result (task_name and trial_name), a job's
// result.json (n_total_trials, or stats with evals) and a reward.json of
// numbers.
func (harborResult) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	keys := headKeys(h, 32)
	_, task := headKeyNamed(keys, "task_name")
	_, trial := headKeyNamed(keys, "trial_name")
	if task && trial {
		return true
	}
	base := strings.ToLower(filepath.Base(name))
	switch base {
	case "result.json":
		if _, ok := headKeyNamed(keys, "n_total_trials"); ok {
			return true
		}
		if k, ok := headKeyNamed(keys, "stats"); ok && k.kind == '{' {
			_, evals := headKeyNamed(headKeys(h[k.off:], 16), "evals")
			return evals
		}
	case "reward.json":
		for _, k := range keys {
			if !isNumberKind(k.kind) {
				return false
			}
		}
		return len(keys) > 0
	}
	return false
}

func (harborResult) Import(f *File, r io.Reader) error {
	d, err := readJSONDoc(f, r)
	if d == nil || err != nil {
		return err
	}
	fields, ok, err := d.object(f)
	if !ok {
		return err
	}
	if _, trial := fields["trial_name"]; trial {
		return harborTrial(f, d, fields)
	}
	if stats, ok := fields["stats"]; ok {
		return harborJob(f, d, stats)
	}
	return harborReward(f, d, fields)
}

// harborTrial makes the row of a trial's result.json.
func harborTrial(f *File, d *jsonDoc, fields map[string]jsonSpan) error {
	name := firstNonEmpty(jsonString(fields["trial_name"].raw), placeID(f.Path()))
	vr, ok := fields["verifier_result"]
	if !ok || isJSONNull(vr.raw) {
		return nil
	}
	v := parseJSONObject(vr.raw)
	reward, ok := harborReward1(v.obj("rewards"))
	if !ok {
		reward, ok = v.num("reward")
	}
	if !ok {
		return f.Reject(d.line(vr.off), "verifier_result: no reward", vr.raw)
	}
	detail := "reward " + strconv.FormatFloat(reward, 'g', -1, 64)
	if ex := parseJSONObject(fields["exception_info"].raw).str("exception_type"); ex != "" {
		detail += " (" + ex + ")"
	}
	return outcomeRow{line: d.line(vr.off), kind: schema.KeyPath, key: name, resolved: rewardOutcome(reward), score: &reward, detail: detail}.emit(f)
}

// harborReward1 is a rewards object's reward: its "reward", else its only
// number.
func harborReward1(rewards jsonObject) (float64, bool) {
	if v, ok := rewards.num("reward"); ok {
		return v, true
	}
	if len(rewards) == 1 {
		for k := range rewards {
			return rewards.num(k)
		}
	}
	return 0, false
}

// harborJob makes a row per trial a job's reward_stats lists, eval by eval
// (in the order of their names) and reward by reward (ascending).
func harborJob(f *File, d *jsonDoc, stats jsonSpan) error {
	sf, err := objectFields(stats)
	if err != nil {
		return f.Reject(d.line(stats.off), "stats: "+clipErr(err), stats.raw)
	}
	evals, ok := sf["evals"]
	if !ok || isJSONNull(evals.raw) {
		return nil
	}
	ef, err := objectFields(evals)
	if err != nil {
		return f.Reject(d.line(evals.off), "stats.evals: "+clipErr(err), evals.raw)
	}
	for _, ev := range sortedFields(ef) {
		rs := parseJSONObject(parseJSONObject(ev.raw).obj("reward_stats")["reward"])
		rewards := make([]string, 0, len(rs))
		for k := range rs {
			rewards = append(rewards, k)
		}
		sort.Slice(rewards, func(i, j int) bool { return parseFloatOr(rewards[i]) < parseFloatOr(rewards[j]) })
		for _, k := range rewards {
			reward, err := strconv.ParseFloat(k, 64)
			if err != nil {
				if err := f.Reject(d.line(ev.off), ev.name+": reward "+strconv.Quote(k)+" is not a number", ev.raw); err != nil {
					return err
				}
				continue
			}
			var trials []string
			if json.Unmarshal(rs[k], &trials) != nil {
				if err := f.Reject(d.line(ev.off), ev.name+": reward "+k+": a list of trial names was expected", ev.raw); err != nil {
					return err
				}
				continue
			}
			for _, t := range trials {
				if err := (outcomeRow{line: d.line(ev.off), kind: schema.KeyPath, key: t, resolved: rewardOutcome(reward), score: &reward,
					detail: "reward_stats " + k}).emit(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// parseFloatOr is s as a number, 0 when it is none.
func parseFloatOr(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// harborReward makes the row of a verifier's reward.json.
func harborReward(f *File, d *jsonDoc, fields map[string]jsonSpan) error {
	o := jsonObject{}
	for k, v := range fields {
		o[k] = v.raw
	}
	reward, ok := harborReward1(o)
	if !ok {
		return f.Reject(1, "no reward: a reward key, or one number, was expected", d.root.raw)
	}
	return outcomeRow{line: 1, kind: schema.KeyPath, key: placeID(f.Path()), resolved: rewardOutcome(reward), score: &reward,
		detail: "reward " + strconv.FormatFloat(reward, 'g', -1, 64)}.emit(f)
}
