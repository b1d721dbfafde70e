// trajmine's number formats (Go: internal/textfmt), for the page: the
// same rules, checked against the Go formatters in headless Chromium
// (TestJSMatchesGo). Every function returns a string; "-" stands for a
// number that is not finite.
var trajmineFmt = (function () {
  "use strict";
  function fin(x) { return typeof x === "number" && isFinite(x); }
  // x with d decimals, half away from zero on x's exact value (toFixed)
  function fixed(x, d) { return fin(x) ? x.toFixed(d) : "-"; }
  function group(s) { return s.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function count(n) {
    if (!fin(n)) return "-";
    var s = Math.abs(Math.trunc(n)).toString();
    return (n < 0 ? "-" : "") + group(s);
  }
  function countOf(n, noun) { return n === 1 ? "1 " + noun : count(n) + " " + noun + "s"; }
  function plural(n, one, many) { return n === 1 ? "1 " + one : count(n) + " " + many; }
  function pct(f) { return fin(f) ? fixed(100 * f, 1) + "%" : "-"; }
  function pctBound(f) {
    var s = pct(f);
    if (f > 0 && s === "0.0%") return "<0.1%";
    if (f < 0 && (s === "-0.0%" || s === "0.0%")) return ">-0.1%";
    return s;
  }
  function pctCI(lo, hi) { return "[" + pctBound(lo) + ", " + pctBound(hi) + "]"; }
  function pctWithCI(x, lo, hi) { return pct(x) + " " + pctCI(lo, hi); }
  function ratio(f) { return fixed(f, 3); }
  function ratioBound(f) {
    var s = ratio(f);
    if (f > 0 && s === "0.000") return "<0.001";
    if (f < 1 && s === "1.000") return "<1.000";
    if (f > 1 && s === "1.000") return ">1.000";
    return s;
  }
  function ratioCI(lo, hi) { return "[" + ratioBound(lo) + ", " + ratioBound(hi) + "]"; }
  function ratioWithCI(x, lo, hi) { return ratio(x) + " " + ratioCI(lo, hi); }
  function dollars(x) {
    if (!fin(x)) return "-";
    var a = Math.abs(x), s = fixed(a, a >= 1 || a === 0 ? 2 : 4);
    if (a > 0 && s === "0.0000") return x < 0 ? ">-$0.0001" : "<$0.0001";
    var p = s.split(".");
    return (x < 0 ? "-" : "") + "$" + group(p[0]) + "." + p[1];
  }
  function tokens(n) {
    if (!fin(n)) return "-";
    var sign = n < 0 ? "-" : "", a = Math.abs(n), units = ["k", "M", "B", "T"];
    if (a < 1000) return sign + a.toFixed(0);
    for (var i = 0; i < units.length; i++) {
      var v = a / Math.pow(1000, i + 1), s = "";
      for (var d = 2; d >= 0; d--) {
        s = v.toFixed(d);
        if (parseFloat(s) < Math.pow(10, 3 - d)) break;
      }
      if (parseFloat(s) >= 1000 && i + 1 < units.length) continue;
      return sign + s + units[i];
    }
    return sign + (a / 1e12).toFixed(0) + "T";
  }
  function two(n) { return n < 10 ? "0" + n : "" + n; }
  // ms milliseconds
  function duration(ms) {
    if (!fin(ms)) return "-";
    if (ms < 0) return "-" + duration(-ms);
    var r = Math.floor(ms + 0.5);
    if (r < 1000) return r === 0 && ms > 0 ? "<1 ms" : r + " ms";
    r = Math.floor(ms / 100 + 0.5);
    if (r < 600) return Math.floor(r / 10) + "." + (r % 10) + " s";
    r = Math.floor(ms / 1000 + 0.5);
    if (r < 3600) return Math.floor(r / 60) + "m" + two(r % 60) + "s";
    r = Math.floor(ms / 60000 + 0.5);
    if (r < 1440) return Math.floor(r / 60) + "h" + two(r % 60) + "m";
    r = Math.floor(ms / 3600000 + 0.5);
    return Math.floor(r / 24) + "d" + two(r % 24) + "h";
  }
  function bytes(n) {
    if (!fin(n)) return "-";
    if (n >= 1073741824) return (n / 1073741824).toFixed(1) + " GB";
    if (n >= 1048576) return (n / 1048576).toFixed(1) + " MB";
    if (n >= 1024) return (n / 1024).toFixed(1) + " kB";
    return n + " B";
  }
  return {count: count, countOf: countOf, plural: plural, pct: pct, pctBound: pctBound, pctCI: pctCI,
    pctWithCI: pctWithCI, ratio: ratio, ratioBound: ratioBound, ratioCI: ratioCI, ratioWithCI: ratioWithCI,
    dollars: dollars, tokens: tokens, duration: duration, bytes: bytes};
})();
