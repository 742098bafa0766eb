// SVG drawing for the page: the cluster map and the allocation curves. Every string is
// set with textContent; nothing from the data is ever parsed as markup.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }
  function titled(node, text) {
    const t = svg("title");
    t.textContent = text;
    node.appendChild(t);
    return node;
  }
  // A stable colour per workload name (hue from a string hash).
  function colour(name) {
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
    const hue = (h >>> 0) % 360, light = 42 + ((h >>> 9) % 3) * 8;
    return `hsl(${hue} 62% ${light}%)`;
  }

  // One domain's nodes: each node a row of GPU slots; a share is a part of its slot.
  function nodeGrid(nodes, width) {
    const cell = 11, gap = 1, nodeGap = 5, rowH = cell + 4;
    const widths = nodes.map((n) => Math.max(n.gpus.length, 1) * (cell + gap) + nodeGap);
    let x = 0, y = 0;
    const pos = [];
    widths.forEach((w) => { if (x + w > width && x > 0) { x = 0; y += rowH; } pos.push([x, y]); x += w; });
    const root = svg("svg", { width, height: y + rowH, role: "img", class: "nodes" });
    nodes.forEach((node, i) => {
      const [nx, ny] = pos[i];
      const g = svg("g", { transform: `translate(${nx},${ny})`, "data-node": "" });
      titled(g, `${node.name}${node.model ? " (" + node.model + ")" : ""}${node.fragmented ? " — free GPUs fragmented" : ""}`);
      node.gpus.forEach((held, d) => {
        const gx = d * (cell + gap);
        let used = 0;
        const slot = svg("rect", { x: gx, y: 0, width: cell, height: cell, fill: "var(--free)", class: "gpu" });
        g.appendChild(slot);
        held.forEach((share) => {
          const h = (cell * share.milli) / 1000;
          const part = svg("rect", { x: gx, y: cell - used - h, width: cell, height: h, fill: colour(share.workload), class: "share" });
          titled(part, `${share.workload}: ${share.milli / 1000} GPU on ${node.name} #${d}`);
          g.appendChild(part);
          used += h;
        });
        if (node.fragmented && used < cell - 0.01) {
          g.appendChild(svg("rect", { x: gx + 0.75, y: 0.75, width: cell - 1.5, height: cell - used - 1.5, fill: "none", stroke: "var(--frag)", "stroke-width": 1.5, class: "fragmented" }));
        }
      });
      root.appendChild(g);
    });
    return root;
  }

  // Series colours for policies: distinct at a glance, in the order the series come.
  const SERIES = ["#2f6db5", "#e07b1a", "#2f9e62", "#c2364a", "#7b5bb8", "#8c6239", "#d45fa6", "#5f7383", "#a8a21c", "#1fa3b8"];
  const seriesColour = (i) => SERIES[i % SERIES.length];

  // Allocation curves: arrived share (x) against allocation (y), a band for the seeds.
  // `zoom` draws the saturated end only (from 80 % arrived), where the policies differ.
  function curves(found, width, height, zoom) {
    const m = { l: 48, r: 150, t: 12, b: 36 }, w = width - m.l - m.r, h = height - m.t - m.b;
    const xMax = Math.max(100, ...found.flatMap((c) => c.arrived));
    const finals = found.filter((c) => c.arrived.length).map((c) => Math.min(c.low[c.low.length - 1], 90));
    const xMin = zoom ? 80 : 0, yMin = zoom ? Math.max(0, Math.floor(Math.min(90, ...finals) - 3)) : 0;
    const X = (v) => m.l + ((v - xMin) / (xMax - xMin)) * w, Y = (v) => m.t + h - ((v - yMin) / (100 - yMin)) * h;
    // The plot box and scale ride on the chart, so what is drawn can be read back as numbers.
    const root = svg("svg", { width, height, role: "img", class: "curves", "aria-label": zoom ? "allocation curves, saturated end" : "allocation curves",
      "data-box": [m.l, m.t, w, h, xMin, xMax, yMin, 100].join(" ") });
    const clip = `clip-${zoom ? "zoom" : "full"}-${Math.random().toString(36).slice(2)}`;
    const clipPath = svg("clipPath", { id: clip });
    clipPath.appendChild(svg("rect", { x: m.l, y: m.t - 4, width: w + 4, height: h + 4 }));
    root.appendChild(clipPath);
    const yStep = (100 - yMin) > 40 ? 20 : (100 - yMin) > 15 ? 5 : 2;
    for (let v = Math.ceil(yMin / yStep) * yStep; v <= 100; v += yStep) {
      root.appendChild(svg("line", { x1: m.l, x2: m.l + w, y1: Y(v), y2: Y(v), stroke: "#e3e6eb" }));
      const label = svg("text", { x: m.l - 6, y: Y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#5d6677" });
      label.textContent = `${v}%`;
      root.appendChild(label);
    }
    const xStep = zoom ? 10 : xMax > 100 ? 25 : 20;
    for (let v = xMin; v <= xMax; v += xStep) {
      const label = svg("text", { x: X(v), y: m.t + h + 16, "text-anchor": "middle", "font-size": 11, fill: "#5d6677" });
      label.textContent = `${v}%`;
      root.appendChild(label);
    }
    const axis = svg("text", { x: m.l + w / 2, y: height - 4, "text-anchor": "middle", "font-size": 11, fill: "#5d6677" });
    axis.textContent = "arrived GPU demand (% of capacity) → GPUs allocated (%)";
    root.appendChild(axis);
    const plot = svg("g", { "clip-path": `url(#${clip})` });
    root.appendChild(plot);
    plot.appendChild(svg("polyline", { points: [[0, 0], [100, 100], [xMax, 100]].map(([a, b]) => `${X(a)},${Y(b)}`).join(" "), fill: "none", stroke: "#9aa3b2", "stroke-dasharray": "2 3" }));
    found.forEach((c, i) => {
      const bound = c.policy === "bound", stroke = bound ? "#1d2330" : seriesColour(i);
      if (c.seeds > 1) {
        const band = c.arrived.map((a, k) => `${X(a)},${Y(c.high[k])}`).concat(c.arrived.map((a, k) => `${X(a)},${Y(c.low[k])}`).reverse());
        plot.appendChild(svg("polygon", { points: band.join(" "), fill: stroke, opacity: 0.15 }));
      }
      const line = svg("polyline", { points: c.arrived.map((a, k) => `${X(a)},${Y(c.mean[k])}`).join(" "), fill: "none", stroke, "stroke-width": 2, "data-policy": c.policy });
      if (bound) line.setAttribute("stroke-dasharray", "6 4");
      titled(line, `${c.policy}: ${c.seeds} seed(s)`);
      plot.appendChild(line);
      const last = c.arrived.length - 1;
      if (last >= 0) {
        const end = svg("circle", { cx: X(c.arrived[last]), cy: Y(c.mean[last]), r: 3, fill: stroke });
        titled(end, `${c.policy}: ${+c.mean[last].toFixed(2)}% allocated at ${c.arrived[last]}% arrived`);
        plot.appendChild(end);
      }
      root.appendChild(svg("rect", { x: m.l + w + 12, y: m.t + i * 18, width: 12, height: 12, fill: stroke }));
      const name = svg("text", { x: m.l + w + 30, y: m.t + i * 18 + 10, "font-size": 12 });
      name.textContent = c.arrived.length ? `${bound ? "offline bound" : c.policy} ${+c.mean[last].toFixed(1)}%` : c.policy;
      root.appendChild(name);
    });
    return root;
  }
  // One bar per row, its value written at its end (the numbers a reader compares).
  function bars(rows, label, value, width) {
    const m = { l: 150, r: 70, t: 4 }, barH = 16, gap = 6, w = width - m.l - m.r;
    const values = rows.map(value).filter((v) => v !== null && v !== undefined);
    const top = Math.max(...values, 1e-9);
    const root = svg("svg", { width, height: m.t * 2 + rows.length * (barH + gap), role: "img", class: "bars" });
    rows.forEach((row, i) => {
      const v = value(row), y = m.t + i * (barH + gap);
      const name = svg("text", { x: m.l - 8, y: y + barH - 4, "text-anchor": "end", "font-size": 12 });
      name.textContent = label(row);
      root.appendChild(name);
      const length = v === null || v === undefined ? 0 : (v / top) * w;
      root.appendChild(svg("rect", { x: m.l, y, width: Math.max(length, 0.5), height: barH, fill: seriesColour(i), "data-bar": label(row) }));
      const text = svg("text", { x: m.l + length + 6, y: y + barH - 4, "font-size": 12, "data-value": label(row) });
      text.textContent = v === null || v === undefined ? "-" : String(+v.toFixed(3));
      root.appendChild(text);
    });
    return root;
  }
  window.wlmapCharts = { nodeGrid, curves, bars, colour };
})();
