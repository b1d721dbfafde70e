// trajmine report: the conversation view of the opened run (its messages,
// reasoning, tool calls with their arguments, tool outputs collapsed,
// compactions and context operations, each model call's tokens and cost),
// and, when trajmine serve serves the page, its live tools: search over
// every run's log text, SQL filters of the run list, and following new
// logs. It uses the report script's hooks (window.trajmineReport). Text
// from logs is only ever set with textContent (never innerHTML).
(function () {
  'use strict';
  var R = window.trajmineReport;
  if (!R || !document.getElementById('conversation')) { return; }
  var runs = R.runs, el = R.el, clear = R.clear, fmt = R.fmt, usd = R.usd;
  var live = runs.live || null;
  var STEP = 150; // items rendered at a time
  var cache = {}; // run key (keyOf) → decoded conversation
  var cur = null; // the conversation shown: { id, key, handle, conv, shown, token, focus }
  var focusNext = null; // a search hit to show when its run opens: { index, seq, q }

  var kinds = [
    ['messages', ['system', 'user', 'assistant']],
    ['reasoning', ['reasoning']],
    ['tool calls', ['tool_call']],
    ['tool outputs', ['tool_result']],
    ['context', ['compaction', 'context_op']],
    ['errors', ['error']]
  ];
  var hiddenKinds = {};
  var find = '';

  function byId(id) { return document.getElementById(id); }

  function api(path) {
    return fetch(path, { headers: { Accept: 'application/json' } }).then(function (r) {
      return r.text().then(function (t) {
        var v = null;
        try { v = JSON.parse(t); } catch (e) { v = null; }
        if (!r.ok) { throw new Error(v && v.error ? v.error : r.status + ' ' + r.statusText); }
        return v;
      });
    });
  }

  function decode(b64) {
    var bin = atob(b64);
    var u = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { u[i] = bin.charCodeAt(i); }
    var ds = new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(ds).text().then(JSON.parse);
  }

  // handleOf is the server's name of run index of the run list (trajmine
  // serve: Live.Handles); the page's run ids are redacted, and a run is
  // never named to the server by its id
  function handleOf(index) {
    return live && live.handles && index >= 0 ? live.handles[index] || '' : '';
  }

  // keyOf is what the cache keeps a run's conversation under: its handle
  // when served, else its index in the run list
  function keyOf(index, handle) { return handle ? 'h' + handle : 'i' + index; }

  // load is the conversation of the run of index in the run list (-1
  // none) and handle (trajmine serve's name of it, '' none): from the
  // page's compressed block, else from the server; null when neither has
  // it
  function load(index, handle) {
    var key = keyOf(index, handle);
    if (cache[key]) { return Promise.resolve(cache[key]); }
    var z = runs.conversations && index >= 0 ? runs.conversations[String(index)] : undefined;
    var p = null;
    if (z && typeof DecompressionStream !== 'undefined') {
      p = decode(z);
    } else if (live && handle) {
      p = api('/api/conversation?run=' + encodeURIComponent(handle));
    }
    if (!p) { return Promise.resolve(null); }
    return p.then(function (c) { cache[key] = c; return c; });
  }

  // --- rendering ------------------------------------------------------------

  // marked appends text to parent with every occurrence of q (any case) in
  // a <mark>
  function marked(parent, text, q) {
    if (!q) { parent.appendChild(document.createTextNode(text)); return; }
    var lo = text.toLowerCase(), k = q.toLowerCase(), at = 0;
    for (;;) {
      var i = lo.indexOf(k, at);
      if (i < 0) { break; }
      parent.appendChild(document.createTextNode(text.slice(at, i)));
      parent.appendChild(el('mark', text.slice(i, i + k.length)));
      at = i + k.length;
    }
    parent.appendChild(document.createTextNode(text.slice(at)));
  }

  function prettyArgs(a) {
    try { return JSON.stringify(JSON.parse(a), null, 2); } catch (e) { return a; }
  }

  var kindLabel = {
    system: 'system', user: 'user', assistant: 'assistant', reasoning: 'reasoning', tool_call: 'tool call',
    tool_result: 'tool output', compaction: 'compaction', context_op: 'context operation', error: 'error'
  };

  function opText(o) {
    var s = o.op + (o.key ? ' ' + o.key : '');
    if (o.before !== undefined || o.after !== undefined) {
      s += ': ' + (o.before !== undefined ? fmt(o.before) : '?') + ' → ' + (o.after !== undefined ? fmt(o.after) : '?') + ' tokens';
    }
    if (o.trigger) { s += ' (' + o.trigger + ')'; }
    return s + ' at call ' + o.turn + (o.detail ? ': ' + o.detail : '');
  }

  function fateText(o) {
    var what = { disable: 'hidden (placeholder shown)', enable: 'shown again', masking: 'masked', truncation: 'truncated',
      compaction: 'compacted', summary: 'summarized', continuation: 'continued' }[o.op] || o.op;
    return what + ' at call ' + o.turn + (o.trigger ? ' (' + o.trigger + ')' : '');
  }

  // body fills an item's text: arguments, text, the cut note and the
  // context operations logged at it
  function body(box, it, c) {
    var q = find || (cur.focus && cur.focus.seq === it.seq ? cur.focus.q : '');
    if (it.args) {
      var pa = el('pre', null, 'conv-args');
      marked(pa, prettyArgs(it.args), q);
      box.appendChild(pa);
    }
    if (it.text) {
      var pt = el('pre', null, 'conv-text');
      marked(pt, it.text, q);
      box.appendChild(pt);
    }
    if (it.cut) {
      var note = el('p', 'cut at ' + fmt(c.limit) + ' of ' + fmt(it.chars) + ' characters' + (live ? '' : ' in this page; trajmine serve shows it whole'), 'note');
      if (live) {
        var b = el('button', 'load all');
        b.type = 'button';
        b.addEventListener('click', function () {
          b.disabled = true;
          api('/api/event?run=' + encodeURIComponent(cur.handle) + '&seq=' + it.seq).then(function (e) {
            it.text = e.text; it.args = e.args; it.cut = false;
            clear(box);
            body(box, it, c);
          }).catch(function (err) { note.textContent = 'could not load it: ' + err.message; });
        });
        note.appendChild(document.createTextNode(' '));
        note.appendChild(b);
      }
      box.appendChild(note);
    }
    if (!it.args && !it.text && !it.cut && it.kind !== 'context_op') { box.appendChild(el('p', '(no text)', 'note')); }
  }

  function badge(parent, text, cls) { parent.appendChild(el('span', text, 'badge' + (cls ? ' ' + cls : ''))); }

  function itemNode(it, c) {
    var collapsed = it.kind === 'tool_result' || it.kind === 'system' || it.kind === 'reasoning' || it.kind === 'compaction';
    var box = el(collapsed ? 'details' : 'div', null, 'conv-item k-' + it.kind + (it.error ? ' failed' : ''));
    box.setAttribute('data-seq', String(it.seq));
    var head = el(collapsed ? 'summary' : 'div', null, 'conv-head');
    head.appendChild(el('span', kindLabel[it.kind] || it.kind, 'conv-kind'));
    if (it.role && it.role !== it.kind && it.kind !== 'tool_result' && it.kind !== 'tool_call') { badge(head, it.role); }
    if (it.tool) { head.appendChild(el('code', it.tool, 'conv-tool')); }
    if (it.target) { head.appendChild(el('span', it.target, 'conv-target')); }
    if (it.error) { badge(head, 'error' + (it.exit !== undefined ? ' (exit ' + it.exit + ')' : ''), 'bad'); } else if (it.exit !== undefined && it.exit !== 0) { badge(head, 'exit ' + it.exit, 'bad'); }
    (it.fate || []).forEach(function (o) { badge(head, fateText(o), 'fate'); });
    head.appendChild(el('span', (it.kind === 'context_op' && !it.chars ? '' : fmt(it.tokens) + ' tokens · ' + fmt(it.chars) + ' chars · ') + 'seq ' + it.seq, 'conv-size'));
    if (collapsed && it.text) {
      // a folded item's first words, on one line (hidden once opened)
      var pv = it.text.replace(/\s+/g, ' ').trim();
      head.appendChild(el('span', pv.length > 200 ? pv.slice(0, 199) + '…' : pv, 'conv-preview'));
    }
    box.appendChild(head);
    (it.ops || []).forEach(function (o) { box.appendChild(el('div', opText(o), 'conv-op')); });
    var inner = el('div', null, 'conv-body');
    box.appendChild(inner);
    if (collapsed) {
      box.addEventListener('toggle', function () {
        if (box.open && !inner.firstChild) { body(inner, it, c); }
      });
    } else {
      body(inner, it, c);
    }
    return box;
  }

  function callNode(turn, call, model) {
    var h = el('div', null, 'conv-call');
    h.appendChild(el('span', 'call ' + turn, 'conv-kind'));
    if (!call) {
      h.appendChild(el('span', 'no usage logged', 'note'));
      return h;
    }
    var parts = ['in ' + fmt(call.input)];
    var cache = [];
    if (call.cache_read) { cache.push('cache read ' + fmt(call.cache_read)); }
    if (call.cache_write) { cache.push('cache write ' + fmt(call.cache_write)); }
    if (cache.length) { parts[0] += ' (' + cache.join(', ') + ')'; }
    parts.push('out ' + fmt(call.output));
    if (call.reasoning) { parts.push('reasoning ' + fmt(call.reasoning)); }
    parts.push(call.cost_usd !== undefined ? usd(call.cost_usd) : 'cost unknown (no price)');
    h.appendChild(el('span', parts.join(' · ') + (call.estimated ? ' (estimated)' : ''), 'conv-usage'));
    if (call.model && call.model !== model) { h.appendChild(el('code', call.model)); }
    return h;
  }

  function visible(it) {
    if (hiddenKinds[it.kind]) { return false; }
    if (!find) { return true; }
    var q = find.toLowerCase();
    return [it.text, it.args, it.tool, it.target, it.key].some(function (s) { return s && s.toLowerCase().indexOf(q) >= 0; });
  }

  function summary(c) {
    var inT = 0, outT = 0, cost = 0, priced = 0;
    c.calls.forEach(function (k) {
      inT += k.input; outT += k.output;
      if (k.cost_usd !== undefined) { cost += k.cost_usd; priced++; }
    });
    var s = fmt(c.events) + ' events; ' + (c.calls.length ? fmt(c.calls.length) + ' model calls with logged usage (in ' + fmt(inT) + ', out ' + fmt(outT) + ' tokens' +
      (priced ? ', ' + usd(cost) + ' priced per call' + (priced < c.calls.length ? ' for ' + priced + ' of them' : '') : '') + ').' : 'no logged usage (the log has no per-call tokens).');
    s += ' Tool outputs, system prompts, reasoning and compaction summaries are folded: click one to open it.';
    if (c.limit > 0 && c.cut > 0) {
      s += ' ' + fmt(c.cut) + ' texts are cut at ' + fmt(c.limit) + ' characters' + (live ? ' (load all shows one whole).' : ' in this page; trajmine serve shows them whole.');
    }
    return s;
  }

  function render() {
    var list = byId('conv-list'), more = byId('conv-more');
    clear(list);
    clear(more);
    var c = cur.conv, byTurn = {};
    c.calls.forEach(function (k) { byTurn[k.turn] = k; });
    var items = c.items.filter(visible);
    var lastTurn = null, n = Math.min(items.length, cur.shown);
    for (var i = 0; i < n; i++) {
      var it = items[i];
      if (it.turn !== lastTurn) {
        list.appendChild(callNode(it.turn, byTurn[it.turn], cur.model));
        lastTurn = it.turn;
      }
      list.appendChild(itemNode(it, c));
    }
    if (items.length === 0) { list.appendChild(el('p', c.items.length ? 'no event matches' : 'no events', 'note')); }
    if (n < items.length) {
      var b = el('button', 'show ' + fmt(Math.min(STEP, items.length - n)) + ' more (' + fmt(items.length - n) + ' left)');
      b.type = 'button';
      b.addEventListener('click', function () { cur.shown += STEP; render(); });
      more.appendChild(b);
    }
    list.setAttribute('data-run', cur.id);
  }

  function tools() {
    var box = byId('conv-tools');
    clear(box);
    var q = el('input', null, 'filter');
    q.type = 'search';
    q.placeholder = 'find in this conversation…';
    q.setAttribute('aria-label', 'find in this conversation');
    q.value = find;
    q.addEventListener('input', function () { find = q.value; if (cur && cur.conv) { render(); } });
    box.appendChild(q);
    kinds.forEach(function (k) {
      var l = el('label', null, 'check'), cb = el('input');
      cb.type = 'checkbox';
      cb.checked = !hiddenKinds[k[1][0]];
      cb.addEventListener('change', function () {
        k[1].forEach(function (x) { hiddenKinds[x] = !cb.checked; });
        if (cur && cur.conv) { render(); }
      });
      l.appendChild(cb);
      l.appendChild(document.createTextNode(' ' + k[0]));
      box.appendChild(l);
    });
    [['open every folded item', true], ['fold them', false]].forEach(function (x) {
      var b = el('button', x[0]);
      b.type = 'button';
      b.addEventListener('click', function () {
        byId('conv-list').querySelectorAll('details.conv-item').forEach(function (d) { d.open = x[1]; });
      });
      box.appendChild(b);
    });
  }

  // focus opens and scrolls to the item of a search hit, its match marked
  function focus() {
    var f = cur.focus;
    if (!f) { return; }
    var items = cur.conv.items.filter(visible), k = -1;
    for (var i = 0; i < items.length; i++) { if (items[i].seq === f.seq) { k = i; } }
    if (k < 0) { return; }
    if (k >= cur.shown) { cur.shown = k + 1; render(); }
    var node = byId('conv-list').querySelector('[data-seq="' + f.seq + '"]');
    if (!node) { return; }
    if (node.tagName === 'DETAILS') { node.open = true; }
    node.classList.add('focus');
    node.scrollIntoView({ block: 'center' });
  }

  // show opens run id's conversation (index: its place in the run list,
  // -1 none; handle: the server's name of it, '' for the run list's;
  // focus: a search hit in it)
  function show(id, index, f, handle) {
    var token = {};
    handle = handle || handleOf(index);
    cur = { id: id, key: keyOf(index, handle), handle: handle, token: token, conv: null, shown: STEP, focus: f || null, model: '' };
    var title = byId('conversation-title'), note = byId('conv-note');
    title.textContent = 'Conversation: ' + (id.length > 90 ? id.slice(0, 89) + '…' : id);
    note.textContent = 'loading…';
    byId('conv-tools').hidden = true; // until there is a conversation to filter
    clear(byId('conv-list'));
    clear(byId('conv-more'));
    R.hold();
    load(index, handle).then(function (c) {
      if (cur.token !== token) { return; }
      if (!c) {
        note.textContent = (runs.conversation_note ? runs.conversation_note + ' ' : '') + 'This run\'s conversation is not in this page: trajmine serve shows every run\'s.';
        return;
      }
      byId('conv-tools').hidden = false;
      cur.conv = c;
      note.textContent = summary(c);
      render();
      focus();
    }).catch(function (e) {
      if (cur.token === token) { note.textContent = 'Could not load the conversation: ' + e.message; }
    }).then(function () { R.release(); });
  }

  tools();
  document.addEventListener('trajmine-run', function (e) {
    var f = focusNext && focusNext.index === e.detail.index ? focusNext : null;
    focusNext = null;
    if (cur && cur.key === keyOf(e.detail.index, handleOf(e.detail.index)) && cur.conv && !f) { return; }
    show(e.detail.id, e.detail.index, f);
    cur.model = e.detail.model || '';
  });

  if (!live) { return; }

  // --- trajmine serve: search, SQL filters, new logs -------------------------

  function button(text, f) {
    var b = el('button', text);
    b.type = 'button';
    b.addEventListener('click', f);
    return b;
  }

  function input(box, label, width, type) {
    var i = el(type === 'textarea' ? 'textarea' : 'input', null, 'filter');
    if (type !== 'textarea') { i.type = type || 'text'; }
    i.placeholder = label;
    i.setAttribute('aria-label', label);
    if (width) { i.style.width = width; }
    box.appendChild(i);
    return i;
  }

  // opens a search hit: its run in the timeline when the run list holds
  // it (h.index), its conversation in any case (by the hit's handle),
  // scrolled to the hit
  function openHit(h, q) {
    focusNext = { index: h.index, seq: h.seq, q: q };
    if (!(h.index >= 0 && R.openIndex(h.index, 'nearest'))) {
      focusNext = null;
      show(h.run_id, -1, { seq: h.seq, q: q }, h.run);
    }
    var t = byId('conversation');
    if (t) { t.scrollIntoView(); }
  }

  var search = (function () {
    var box = byId('search-tools'), note = byId('search-note'), table = byId('search-results');
    if (!box) { return null; }
    var q = input(box, 'text in any event of any run: tool outputs, messages, arguments…', '420px', 'search');
    var l = el('label', null, 'check'), rx = el('input');
    rx.type = 'checkbox';
    l.appendChild(rx);
    l.appendChild(document.createTextNode(' regular expression'));
    box.appendChild(l);
    var last = null;
    function run() {
      var text = q.value;
      if (!text) { return; }
      sessionStorage.setItem('trajmine-search', JSON.stringify({ q: text, regex: rx.checked }));
      note.textContent = 'searching…';
      clear(table);
      R.hold();
      api('/api/search?q=' + encodeURIComponent(text) + (rx.checked ? '&regex=1' : '')).then(function (r) {
        last = r;
        note.textContent = r.note;
        var head = el('thead'), tr = el('tr');
        ['run', 'matching events', 'first match', 'where'].forEach(function (h, i) { tr.appendChild(el('th', h, i === 1 ? '' : 'text')); });
        head.appendChild(tr);
        table.appendChild(head);
        var tb = el('tbody');
        r.runs.forEach(function (h) {
          var row = el('tr');
          row.appendChild(el('td', h.run_id, 'text'));
          row.appendChild(el('td', fmt(h.hits)));
          var snip = el('td', null, 'text');
          // on one line: white space runs as one space, in the match too
          marked(snip, h.snippet.replace(/\s+/g, ' ').trim(), (rx.checked ? h.match : text).replace(/\s+/g, ' '));
          row.appendChild(snip);
          row.appendChild(el('td', 'call ' + h.turn + ' · ' + (kindLabel[h.kind] || h.kind) + (h.tool ? ' · ' + h.tool : '') + ' · seq ' + h.seq, 'text'));
          row.addEventListener('click', function () { openHit(h, rx.checked ? h.match : text); });
          tb.appendChild(row);
        });
        table.appendChild(tb);
      }).catch(function (e) {
        note.textContent = 'Search failed: ' + e.message;
      }).then(function () { R.release(); });
    }
    q.addEventListener('keydown', function (e) { if (e.key === 'Enter') { run(); } });
    box.appendChild(button('search', run));
    box.appendChild(button('list these runs', function () {
      if (!last) { return; }
      var ids = {};
      last.runs.forEach(function (h) { ids[h.run_id] = true; });
      R.setIds(ids, fmt(last.runs.length) + ' runs match the search');
    }));
    return { q: q, rx: rx, run: run };
  })();

  (function filters() {
    var box = byId('filter-tools'), note = byId('filter-note');
    if (!box) { return; }
    var f = {
      model: input(box, 'model contains', '150px'),
      family: input(box, 'model family', '150px'),
      format: input(box, 'format', '150px'),
      end: input(box, 'end reason', '140px'),
      tool: input(box, 'calls tool', '120px'),
      min_calls: input(box, 'calls ≥', '80px', 'number'),
      max_calls: input(box, 'calls ≤', '80px', 'number'),
      min_peak: input(box, 'peak share ≥ %', '120px', 'number'),
      text: input(box, 'any event contains', '180px')
    };
    var sql = input(box, 'or a read-only query whose run_id column lists the runs, e.g. SELECT run_id FROM runs WHERE n_turns > 50', '100%', 'textarea');
    sql.rows = 2;
    function apply() {
      var p = [];
      Object.keys(f).forEach(function (k) { if (f[k].value !== '') { p.push(k + '=' + encodeURIComponent(f[k].value)); } });
      if (sql.value.trim()) { p.push('sql=' + encodeURIComponent(sql.value)); }
      if (!p.length) { R.setIds(null); note.textContent = ''; return; }
      note.textContent = 'filtering…';
      R.hold();
      api('/api/runs?' + p.join('&')).then(function (r) {
        var ids = {};
        r.run_ids.forEach(function (id) { ids[id] = true; });
        R.setIds(ids, fmt(r.run_ids.length) + ' runs match the SQL filter');
        note.textContent = fmt(r.run_ids.length) + ' runs match. SQL run: ' + r.sql + (r.args && r.args.length ? ' with ' + JSON.stringify(r.args) : '');
      }).catch(function (e) {
        note.textContent = 'Filter failed: ' + e.message;
      }).then(function () { R.release(); });
    }
    box.appendChild(button('apply', apply));
    box.appendChild(button('clear', function () {
      Object.keys(f).forEach(function (k) { f[k].value = ''; });
      sql.value = '';
      R.setIds(null);
      note.textContent = '';
    }));
  })();

  // new logs: poll the generation; on a new one reload (the address keeps
  // the open run), restoring the scroll position and the last search
  (function follow() {
    var bar = byId('live');
    var keep = el('label', null, 'check'), cb = el('input');
    cb.type = 'checkbox';
    cb.checked = sessionStorage.getItem('trajmine-follow') !== '0';
    cb.addEventListener('change', function () { sessionStorage.setItem('trajmine-follow', cb.checked ? '1' : '0'); });
    keep.appendChild(cb);
    keep.appendChild(document.createTextNode(' reload on new logs'));
    if (bar) { bar.appendChild(document.createTextNode(' ')); bar.appendChild(keep); }
    var y = sessionStorage.getItem('trajmine-scroll');
    if (y !== null) {
      // once the run list and the conversation are drawn (data-ready)
      sessionStorage.removeItem('trajmine-scroll');
      var back = setInterval(function () {
        if (document.documentElement.hasAttribute('data-ready')) {
          clearInterval(back);
          window.scrollTo(0, Number(y));
        }
      }, 50);
    }
    var s = sessionStorage.getItem('trajmine-search');
    if (s && search) {
      try {
        var v = JSON.parse(s);
        search.q.value = v.q;
        search.rx.checked = !!v.regex;
        search.run();
      } catch (e) { sessionStorage.removeItem('trajmine-search'); }
    }
    if (!live.poll) { return; }
    var waiting = false, stale = null;
    setInterval(function () {
      if (waiting) { return; }
      waiting = true;
      api('/api/generation').then(function (g) {
        if (g.generation === live.generation) { return; }
        if (cb.checked) {
          sessionStorage.setItem('trajmine-scroll', String(window.scrollY));
          location.reload();
        } else if (!stale && bar) {
          stale = el('span', ' New logs were imported (generation ' + g.generation + '): reload the page to see them.', 'stale');
          bar.appendChild(stale);
        }
      }).catch(function () { /* the server is gone or busy: try again */ }).then(function () { waiting = false; });
    }, Math.max(250, live.poll));
  })();
})();
