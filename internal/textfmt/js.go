package textfmt

import _ "embed"

// JS is the page's copy of these formatters: a script that defines
// trajmineFmt with count, countOf, plural, pct, pctBound, pctCI,
// pctWithCI, ratio, ratioBound, ratioCI, ratioWithCI, dollars, tokens,
// duration (of milliseconds) and bytes, each following the rule of its Go
// namesake (Thousands, CountOf, …, Duration, Bytes). A page embeds it in
// a <script> element; it holds no "</script" and requests nothing.
//
//go:embed textfmt.js
var JS string
