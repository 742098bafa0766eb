// The wlmap page: hash routes, one render function per page, data from /api. Strings from
// objects only ever reach the page through textContent or attribute values (el below).
"use strict";
(function () {
  const main = document.getElementById("main");
  const problemsBox = document.getElementById("problems");
  const PAGE = 500; // rows drawn at once on the Workloads page

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "on") { for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn); }
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const show = (...nodes) => { main.replaceChildren(...nodes.flat(2).filter((n) => n !== null && n !== undefined && n !== false)); };
  const num = (v) => (v === null || v === undefined ? "-" : Number.isInteger(v) ? String(v) : String(+Number(v).toFixed(3)));

  function problems(list) {
    if (!list || !list.length) { problemsBox.hidden = true; problemsBox.replaceChildren(); return; }
    problemsBox.hidden = false;
    const times = new Map(); // one line per message: a dump's many Nodes say the same thing
    list.forEach((p) => times.set(p, (times.get(p) || 0) + 1));
    problemsBox.replaceChildren(el("strong", {}, `Could not read everything (${list.length}):`),
      el("ul", {}, [...times].map(([p, n]) => el("li", { class: "problem", "data-times": n }, n > 1 ? `${p} (${n} times)` : p))));
  }
  async function load(path) {
    const answer = await fetch(path, { headers: { Accept: "application/json" } });
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    return data;
  }
  const states = (phases) => phases.map((p) => el("span", { class: `state ${p}`, "data-state": p }, p));
  // the shown page's answer to a live change (set by the page, cleared on every route)
  let onChange = null;
  document.addEventListener("wlmap-change", (e) => { if (onChange) onChange(e.detail); });
  document.addEventListener("wlmap-reload", () => route());

  // -- Workloads ------------------------------------------------------------------------
  const filter = { namespace: "", kind: "", state: "", text: "", sort: "namespace", desc: false, shown: PAGE };
  const columns = [
    ["kind", "Kind", (r) => r.kind],
    ["namespace", "Namespace", (r) => r.namespace || ""],
    ["name", "Name", (r) => r.name || ""],
    ["state", "State", (r) => r.phases.join(",")],
    ["pods", "Pods", (r) => r.totals.pods, true],
    ["gpus", "GPUs", (r) => r.totals.gpus, true],
    ["gangs", "Gang min", (r) => r.gangs.reduce((s, g) => s + g.minMember, 0), true],
    ["definition", "Definition", (r) => r.definition],
  ];
  function workloads(data) {
    problems(data.problems);
    const byKey = new Map(data.items.map((r) => [r.key, r]));
    const values = (f) => [...new Set(data.items.map(f).filter((v) => v))].sort();
    const select = (key, label, options) => el("label", {}, label, el("select", { "data-filter": key, on: { change: (e) => { filter[key] = e.target.value; filter.shown = PAGE; refresh(); } } },
      el("option", { value: "" }, "all"), options.map((o) => el("option", { value: o, selected: filter[key] === o }, o))));
    const counts = el("div", { class: "counts", role: "group", "aria-label": "Workloads per state" });
    const drawCounts = () => counts.replaceChildren(...Object.entries(data.states).filter(([, n]) => n > 0).sort().map(([s, n]) => el("button", { class: "count", type: "button", "data-state": s, "aria-pressed": String(filter.state === s),
        on: { click: () => { filter.state = filter.state === s ? "" : s; filter.shown = PAGE; refresh(); } } }, el("b", {}, n), s)));
    drawCounts();
    const text = el("input", { type: "search", "data-filter": "text", placeholder: "name, label, kind…", value: filter.text, on: { input: (e) => { filter.text = e.target.value; filter.shown = PAGE; drawRows(); } } });
    const controls = el("div", { class: "filters" }, select("namespace", "Namespace", values((r) => r.namespace)), select("kind", "Kind", values((r) => r.kind)),
      select("state", "State", Object.keys(data.states).sort()), el("label", {}, "Search", text));
    const body = el("tbody");
    const summary = el("p", { class: "muted", id: "shown" });
    const more = el("button", { class: "more", type: "button", on: { click: () => { filter.shown += PAGE; drawRows(); } } }, "Show more");
    const head = el("tr", {}, columns.map(([key, label, , numeric]) => el("th", { class: numeric ? "num" : null, scope: "col", "aria-sort": filter.sort === key ? (filter.desc ? "descending" : "ascending") : null },
      el("button", { type: "button", "data-sort": key, on: { click: () => { filter.desc = filter.sort === key ? !filter.desc : false; filter.sort = key; refresh(); } } }, label))));
    const needle = () => filter.text.toLowerCase();
    const passes = (r, text) => (!filter.namespace || r.namespace === filter.namespace) && (!filter.kind || r.kind === filter.kind)
      && (!filter.state || r.phases.includes(filter.state))
      && (!text || [r.name, r.namespace, r.kind, ...Object.entries(r.labels).flat()].some((v) => String(v || "").toLowerCase().includes(text)));
    const rowOf = (r) => el("tr", { "data-key": r.key },
      el("td", {}, r.kind), el("td", {}, r.namespace || "-"), el("td", {}, el("a", { href: `#/workload/${r.key}` }, r.name || "(generated name)")),
      el("td", {}, states(r.phases)), el("td", { class: "num", "data-col": "pods" }, r.podsReady === null ? num(r.totals.pods) : `${r.podsReady}/${r.totals.pods}`),
      el("td", { class: "num", "data-col": "gpus" }, num(r.totals.gpus)), el("td", { class: "num", "data-col": "gangs" }, r.gangs.length ? r.gangs.map((g) => g.minMember).join(", ") : "-"),
      el("td", { class: "muted" }, r.definition));
    let matching = 0;
    function drawRows() {
      const [, , key] = columns.find(([k]) => k === filter.sort);
      const text = needle();
      let rows = [...byKey.values()].filter((r) => passes(r, text));
      rows = rows.slice().sort((a, b) => { const x = key(a), y = key(b); const c = typeof x === "number" ? x - y : String(x).localeCompare(String(y)); return filter.desc ? -c : c; });
      matching = rows.length;
      summary.textContent = `${rows.length} of ${data.count} workloads`;
      body.replaceChildren(...rows.slice(0, filter.shown).map(rowOf));
      more.hidden = rows.length <= filter.shown;
    }
    // A change updates the controls' state and the rows in place: rebuilding the page
    // would take the keyboard focus away from the control just used.
    function refresh() {
      counts.querySelectorAll("button[data-state]").forEach((b) => b.setAttribute("aria-pressed", String(filter.state === b.dataset.state)));
      controls.querySelectorAll("select[data-filter]").forEach((s) => { if (s.value !== filter[s.dataset.filter]) s.value = filter[s.dataset.filter]; });
      head.querySelectorAll("th").forEach((th, i) => { if (filter.sort === columns[i][0]) th.setAttribute("aria-sort", filter.desc ? "descending" : "ascending"); else th.removeAttribute("aria-sort"); });
      drawRows();
    }
    // A live change costs its own row: replaced, removed or (when new) drawn in order.
    let redraw = 0;
    const later = () => { if (!redraw) redraw = requestAnimationFrame(() => { redraw = 0; drawRows(); }); };
    const tally = (r, step) => { r.phases.forEach((p) => { data.states[p] = (data.states[p] || 0) + step; }); };
    onChange = (change) => {
      const key = change.op === "put" ? change.row.key : change.key;
      const old = byKey.get(key);
      if (old) { tally(old, -1); byKey.delete(key); data.count -= 1; }
      if (change.op === "put") { byKey.set(key, change.row); tally(change.row, 1); data.count += 1; }
      drawCounts();
      const text = needle();
      const fits = change.op === "put" && passes(change.row, text);
      const drawn = body.querySelector(`tr[data-key="${key}"]`);
      if (old && passes(old, text)) matching -= 1;
      if (drawn && fits) { drawn.replaceWith(rowOf(change.row)); matching += 1; }
      else { if (drawn) drawn.remove(); if (fits) later(); }
      summary.textContent = `${matching} of ${data.count} workloads`;
    };
    window.wlmapLive.follow(data.version);
    show(el("h1", {}, "Workloads"), counts, controls, summary, el("table", {}, el("thead", {}, head), body), more);
    drawRows();
  }

  // -- Workload -------------------------------------------------------------------------
  function evidence(list) {
    return el("ul", {}, (list || []).map((e) => el("li", { class: `evidence ${e.holds ? "holds" : "misses"}` },
      `${e.holds ? "✓" : "✗"} ${e.check}: expected ${JSON.stringify(e.expected)}, found ${JSON.stringify(e.found)}`)));
  }
  function kv(pairs) { return el("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v))])); }
  function workload(w, key) {
    problems(w.warnings);
    onChange = (change) => {
      if ((change.op === "put" ? change.row.key : change.key) !== key) return;
      if (change.op === "delete") { problems([`${w.kind} ${w.namespace || "default"}/${w.name} was deleted from the cluster.`]); document.body.dataset.gone = String(key); return; }
      load(`/api/workload/${key}`).then((fresh) => { workload(fresh, key); document.body.dataset.updated = String(change.row.key); });
    };
    window.wlmapLive.follow(w.version);
    const children = {};
    w.components.forEach((c) => { (children[c.parent || ""] = children[c.parent || ""] || []).push(c); });
    const branch = (parent) => el("ul", { class: parent ? null : "tree" }, (children[parent] || []).map((c) => el("li", { "data-component": c.name },
      el("strong", {}, c.name), ` ${c.kind || ""} · pods ${c.podsReady === null ? c.pods : `${c.podsReady}/${c.pods}`} · GPUs ${num(c.gpus)}`, children[c.name] && c.name !== parent ? branch(c.name) : null)));
    const ex = w.explanation;
    const status = el("div", { class: "card" }, el("p", {}, "State: ", states(w.phases)),
      ex.matched.length ? [el("h2", {}, "Rule that fired"), ex.matched.map((m) => el("div", {}, el("p", {}, `${m.status} (rule ${m.matcher})`), evidence(m.evidence)))] : el("p", { class: "muted" }, ex.note || "No status rule fired."),
      ex.nearestMisses.length ? [el("h2", {}, "Nearest misses"), ex.nearestMisses.map((m) => el("div", {}, el("p", {}, `${m.status} (rule ${m.matcher})`), evidence(m.evidence)))] : null);
    const gangs = w.gangGroups.length ? el("table", { class: "gangs" }, el("thead", {}, el("tr", {}, ["Gang", "Minimum", "Members", "Source"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, w.gangGroups.map((g) => el("tr", {}, el("td", {}, g.name), el("td", { class: "num", "data-col": "minMember" }, g.minMember), el("td", {}, g.members.join(", ")), el("td", { class: "muted" }, g.source))))) : el("p", { class: "muted" }, "No gang groups.");
    const pods = w.pods && w.pods.length ? el("table", { class: "pods" }, el("thead", {}, el("tr", {}, ["Pod", "Component", "Node", "Phase", "Ready", "GPUs"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, w.pods.map((p) => el("tr", {}, el("td", {}, p.name), el("td", {}, p.component || "-"), el("td", {}, p.node || "(not bound)"), el("td", {}, p.phase || "-"), el("td", {}, p.ready ? "yes" : "no"), el("td", { class: "num" }, num(p.gpus))))))
      : el("p", { class: "muted" }, w.pods === null ? "The input holds no pods of this workload." : "No pods.");
    show(el("p", {}, el("a", { href: "#/workloads" }, "← Workloads")), el("h1", {}, `${w.kind} ${w.namespace || "default"}/${w.name}`),
      kv([["API version", w.apiVersion], ["Definition", w.definition], ["From", w.origin], ["Pods", w.totals.pods], ["GPUs", w.totals.gpus]]),
      el("h2", {}, "Status"), status, el("h2", {}, "Components"), el("div", { class: "card" }, branch("")), el("h2", {}, "Gangs"), gangs, el("h2", {}, "Pods"), pods);
  }

  // -- Cluster --------------------------------------------------------------------------
  function cluster(c) {
    problems(c.problems);
    if (!c.domains.length) { show(el("h1", {}, "Cluster"), el("p", { class: "muted" }, "No GPU nodes to draw: give a nodes,pods dump (--cluster) or an openb trace (--trace-nodes, --trace-pods).")); return; }
    const width = Math.max(600, Math.min(main.clientWidth || 1200, 1560) - 32);
    const t = c.totals;
    const legend = el("div", { class: "legend" }, el("span", {}, el("span", { class: "swatch free" }), "free GPU"), el("span", {}, el("span", { class: "swatch frag" }), "free but no waiting pod fits (fragmented)"),
      el("span", { class: "muted" }, "a colour per workload; a part of a slot is a fractional share; hover a slot for its holder"));
    show(el("h1", {}, "Cluster"), el("p", { id: "cluster-totals" }, `${t.nodes} nodes · ${t.gpus} GPUs · ${num(t.usedGpus)} in use · ${t.freeWholeGpus} whole GPUs free · ${num(t.fragmentedGpus)} fragmented · ${c.waiting.length} pods waiting`),
      el("p", { class: "muted" }, `Grouped by ${c.levels.join(" › ")} · from ${c.source}`), legend,
      c.domains.map((d) => el("section", { class: "domain", "data-domain": d.path.join("/") },
        el("h2", {}, `${d.path.join(" › ")} — ${d.totals.nodes} nodes, ${d.totals.gpus} GPUs, ${num(d.totals.usedGpus)} in use, ${d.totals.freeWholeGpus} free, ${num(d.totals.fragmentedGpus)} fragmented`),
        window.wlmapCharts.nodeGrid(d.nodes, width))));
  }

  // -- Waiting --------------------------------------------------------------------------
  // The plan's answer for each gang: where it would go now, or the binding level and
  // resource and whose pods finishing would make room (the fields of `wlmap plan -o json`).
  function gangPlan(p) {
    const head = el("p", {}, el("strong", {}, p.gang), ` · ${p.pods} pods × ${num(p.gpusPerPod)} GPUs`, p.required ? ` · required ${p.required.level}` : null);
    if (p.fits) {
      return el("div", { class: "gang-plan fits", "data-gang": p.gang, "data-fits": "true" }, head,
        el("p", {}, "fits in ", el("span", { "data-col": "domain" }, p.domain ? `${p.domain.level} ${p.domain.values.join("/")}` : "-"), " on ",
          (p.nodes || []).flatMap((n, i) => [i ? ", " : "", el("span", { "data-node": n.name, "data-pods": n.pods }, `${n.name} (${n.pods} pod${n.pods === 1 ? "" : "s"})`)])),
        el("p", { class: "muted" }, p.reason));
    }
    const short = p.shortfall;
    return el("div", { class: "gang-plan short", "data-gang": p.gang, "data-fits": "false" }, head,
      short ? [
        el("p", {}, "does not fit: needs ", el("span", { "data-col": "neededGpus" }, short.neededGpus), " GPUs in one ", el("span", { "data-col": "level" }, short.level),
          "; the emptiest, ", el("span", { "data-col": "roomiestDomain" }, short.roomiestDomain || "-"), ", has ", el("span", { "data-col": "emptiestFreeGpus" }, short.emptiestFreeGpus), " free"),
        short.wouldFitIfFinished.length ? el("ul", { class: "reliefs" }, short.wouldFitIfFinished.map((r) => el("li", { "data-relief": r.workloads.join(", "), "data-gpus": r.gpus },
          `${r.domains} ${r.domains === 1 ? "domain" : "domains"} would fit if ${r.workloads.join(", ")} finished (${num(r.gpus)} GPUs in ${r.in.join(", ")})`)))
          : el("p", { class: "muted" }, "no running workload's pods finishing would make room"),
      ] : null,
      el("p", { class: "muted" }, p.reason));
  }
  function planAnswer(plan) {
    if (!plan) return el("span", { class: "muted" }, "no plan: give the nodes (a dump with Node objects, or --cluster DUMP) and --levels");
    if (plan.error) return el("span", { class: "problem" }, plan.error);
    return el("div", { "data-plan": plan.fits ? "fits" : "short" }, el("p", {}, plan.fits ? `fits on ${plan.cluster}` : `does not fit on ${plan.cluster}`, ` · ${plan.gpus} GPUs, ${plan.freeGpusAfter} free after`),
      plan.plans.map(gangPlan));
  }
  function waiting(w) {
    problems(w.problems);
    show(el("h1", {}, "Waiting"),
      el("h2", {}, `Workloads that wait (${w.items.length})`),
      w.items.length ? el("table", {}, el("thead", {}, el("tr", {}, ["Workload", "State", "Gang minimums", "Plan"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, w.items.map((i) => el("tr", { "data-key": i.key }, el("td", {}, el("a", { href: `#/workload/${i.key}` }, `${i.kind} ${i.namespace || "default"}/${i.name}`)),
          el("td", {}, states(i.phases)), el("td", { class: "num", "data-col": "gangs" }, i.gangs.map((g) => `${g.name} ≥ ${g.minMember}`).join(", ") || "-"), el("td", {}, planAnswer(i.plan))))))
        : el("p", { class: "muted" }, "No workload is suspended, initializing or resuming."),
      el("h2", {}, `Pods waiting for GPUs (${w.pods.length})`),
      w.pods.length ? el("table", {}, el("thead", {}, el("tr", {}, ["Workload", "Pod", "GPUs", "Share"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, w.pods.slice(0, 500).map((p) => el("tr", {}, el("td", {}, p.workload), el("td", {}, p.name), el("td", { class: "num" }, p.gpus), el("td", { class: "num" }, `${p.gpuMilli / 10}%`)))))
        : el("p", { class: "muted" }, "No pod waits for GPUs in the cluster input."));
  }

  // -- Simulations ----------------------------------------------------------------------
  const GANG_COLUMNS = [
    ["cost_mean", "Pair cost"], ["multi_pod_cost_mean", "Pair cost, multi-pod gangs"], ["occupancy_pct", "Occupancy %"],
    ["delay_p95_s", "Delay p95 (s)"], ["required_satisfied_pct", "Required met %"], ["admitted", "Admitted"], ["arrived", "Arrived"],
  ];
  function gangTable(t, width) {
    const costs = t.policies.map((p) => p.cost_mean).filter((v) => v !== null);
    const lowest = Math.min(...costs);
    return el("div", { class: "chart", "data-gangs": `${t.scenario} ${t.load} ${t.queue}` },
      el("h3", {}, `${t.scenario} · load ${t.load} · queue ${t.queue}`),
      el("p", { class: "muted" }, "Mean pair cost of a gang's pods under the scenario's tier weights (lower is closer), over the seeds"),
      window.wlmapCharts.bars(t.policies, (p) => p.policy, (p) => p.cost_mean, Math.min(width, 760)),
      el("table", { class: "gang-costs" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Policy"), el("th", { scope: "col", class: "num" }, "Seeds"),
        GANG_COLUMNS.map(([, label]) => el("th", { scope: "col", class: "num" }, label)))),
      el("tbody", {}, t.policies.map((p) => el("tr", { "data-policy": p.policy, class: p.cost_mean === lowest ? "best" : null }, el("td", {}, p.policy), el("td", { class: "num" }, p.seeds),
        GANG_COLUMNS.map(([key]) => el("td", { class: "num", "data-col": key }, num(p[key]))))))));
  }
  function simulations(s) {
    problems(s.problems);
    // main's width counts its padding, a chart card has its own: two charts and their gap fit
    const width = Math.max(900, Math.min(main.clientWidth || 1200, 1500) - 80);
    show(el("h1", {}, "Simulations"), s.files.length ? s.files.map((f) => {
      const traces = [...new Set(f.curves.map((c) => c.trace))];
      return el("section", { "data-file": f.file }, el("h2", {}, f.file),
        traces.map((t) => el("div", { class: "chart", "data-trace": t }, el("h3", {}, `Allocation on trace ${t || "(unnamed)"}`),
          el("p", { class: "muted" }, "GPUs allocated as the trace's demand arrives: the mean over the seeds, the band from the lowest to the highest seed, the dotted line where every arrival fits; right, the saturated end where the policies differ"),
          el("div", { class: "pair" }, [false, true].map((zoom) => {
            const mine = f.curves.filter((c) => c.trace === t);
            // the saturated end only for a run that reached it
            return zoom && Math.max(...mine.flatMap((c) => c.arrived)) < 90 ? null : window.wlmapCharts.curves(mine, Math.floor((width - 16) / 2), 340, zoom);
          })))),
        f.gangs.length ? [el("h3", {}, "Gang placement cost"), f.gangs.map((t) => gangTable(t, width))] : null);
    }) : el("p", { class: "muted" }, "No simulation results: give a CSV written by wlmap simulate or wlmap simulate gangs with --simulation."));
  }

  // -- routing --------------------------------------------------------------------------
  const routes = [
    [/^#\/workloads$/, "workloads", () => load("/api/workloads").then(workloads)],
    [/^#\/workload\/(\d+)$/, "workloads", (m) => load(`/api/workload/${m[1]}`).then((w) => workload(w, Number(m[1])))],
    [/^#\/cluster$/, "cluster", () => load("/api/cluster").then(cluster)],
    [/^#\/waiting$/, "waiting", () => load("/api/waiting").then(waiting)],
    [/^#\/simulations$/, "simulations", () => load("/api/simulations").then(simulations)],
  ];
  async function route() {
    const hash = location.hash || "#/workloads";
    const found = routes.map(([re, page, fn]) => [hash.match(re), page, fn]).find(([m]) => m);
    if (!found) { location.hash = "#/workloads"; return; }
    const [m, page, fn] = found;
    onChange = null;
    document.querySelectorAll("nav a").forEach((a) => { if (a.dataset.page === page) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current"); });
    try {
      await fn(m);
      document.title = `wlmap · ${main.querySelector("h1") ? main.querySelector("h1").textContent : page}`;
    } catch (error) {
      show(el("h1", {}, "Could not show this page"), el("p", { class: "problem" }, String(error.message || error)));
    }
    performance.mark(`wlmap-shown-${page}`);
    document.body.dataset.shown = hash;
  }
  window.addEventListener("hashchange", route);
  route();
})();
