package compare

import (
	"slices"
	"strconv"
)

// Matrix is the per-task solve matrix (the DTOC paper's Table 3): one row
// per task id, one column per model and group (per group when the groups
// are models).
type Matrix struct {
	Columns []Column `json:"columns"`
	Tasks   []Task   `json:"tasks"`
	// NoTask counts the runs without a task id, which have no row.
	NoTask int `json:"runs_without_task"`
}

// Column is one column of the matrix.
type Column struct {
	Model string `json:"model,omitempty"` // "" when the groups are models
	Group string `json:"group"`
}

// Task is one row of the matrix.
type Task struct {
	Task  string `json:"task_id"`
	Cells []Cell `json:"cells"` // per column
	// Differs: for some model, two groups' cells both have outcomes and
	// differ (one solved the task, the other not, or in other shares).
	Differs bool `json:"differs"`
}

// Cell is one task × column: the runs, those with an outcome and those
// that solved the task.
type Cell struct {
	Runs   int `json:"runs"`
	Known  int `json:"with_outcome"`
	Solved int `json:"solved"`
}

// Mark is the cell as the tables print it: ✓ solved, ✗ failed, ? run
// without an outcome, - no run; with several runs, solved/with outcome
// ("1/2").
func (c Cell) Mark() string {
	switch {
	case c.Runs == 0:
		return "-"
	case c.Known == 0:
		return "?"
	case c.Known > 1:
		return strconv.Itoa(c.Solved) + "/" + strconv.Itoa(c.Known)
	case c.Solved == 1:
		return "✓"
	}
	return "✗"
}

// matrix builds the solve matrix of the groups' runs.
func matrix(names []string, groups [][]*Run, byModel bool) Matrix {
	var m Matrix
	var models []string
	if !byModel {
		for _, rs := range groups {
			for _, r := range rs {
				if !slices.Contains(models, r.Model) {
					models = append(models, r.Model)
				}
			}
		}
		slices.Sort(models)
	} else {
		models = []string{""}
	}
	col := map[[2]string]int{}
	for _, mdl := range models {
		for gi, n := range names {
			has := false
			for _, r := range groups[gi] {
				has = has || byModel || r.Model == mdl
			}
			if has {
				col[[2]string{mdl, n}] = len(m.Columns)
				m.Columns = append(m.Columns, Column{Model: mdl, Group: n})
			}
		}
	}
	rows := map[string][]Cell{}
	for gi, rs := range groups {
		for _, r := range rs {
			if r.Task == "" {
				m.NoTask++
				continue
			}
			mdl := r.Model
			if byModel {
				mdl = ""
			}
			cells, ok := rows[r.Task]
			if !ok {
				cells = make([]Cell, len(m.Columns))
				rows[r.Task] = cells
			}
			c := &cells[col[[2]string{mdl, names[gi]}]]
			c.Runs++
			if r.Resolved != nil {
				c.Known++
				if *r.Resolved {
					c.Solved++
				}
			}
		}
	}
	tasks := make([]string, 0, len(rows))
	for t := range rows {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		cells := rows[t]
		row := Task{Task: t, Cells: cells}
		// differs: within a model, two known cells with different solve shares
		for i := range cells {
			for j := i + 1; j < len(cells); j++ {
				a, b := cells[i], cells[j]
				if m.Columns[i].Model == m.Columns[j].Model && a.Known > 0 && b.Known > 0 && a.Solved*b.Known != b.Solved*a.Known {
					row.Differs = true
				}
			}
		}
		m.Tasks = append(m.Tasks, row)
	}
	return m
}
