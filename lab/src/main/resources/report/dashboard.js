/*
 * Draws the report's charts with uPlot from the JSON in #report-data. Every time chart of a run shares its x range
 * and its cursor, so a second read on one chart reads on all; the measured phase is shaded. Each chart's box gets
 * data-series and data-points once drawn (what the report's browser test reads). A capacity curve's charts have the
 * offered rate on x, a point per step.
 */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);

  /* nines (1 = 90 %, 2 = 99 %) -> "99.9%" */
  function percentileLabel(n) {
    var p = 100 * (1 - Math.pow(10, -n));
    var digits = n <= 2 ? 0 : Math.min(4, Math.ceil(n) - 2);
    return p.toFixed(digits) + "%";
  }

  function measuredBand(run) {
    return function (u) {
      var x0 = u.valToPos(run.measuredFrom, "x", true);
      var x1 = u.valToPos(run.measuredTo, "x", true);
      if (!(x1 > x0)) return;
      var ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = "rgba(60, 120, 200, 0.07)";
      ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      ctx.restore();
    };
  }

  function fromZero(u, min, max) {
    return [0, max > 0 ? max * 1.1 : 1];
  }

  function draw(run, chart, sync) {
    var box = document.getElementById(chart.id);
    var target = box.querySelector(".plot");
    var time = chart.kind === "time";
    var rate = chart.kind === "rate";
    var small = box.classList.contains("small");
    var opts = {
      width: Math.max(280, target.clientWidth || box.clientWidth || 600),
      height: small ? 170 : 230,
      cursor: time ? { sync: { key: sync.key } } : {},
      scales: {
        x: time ? { time: false, range: function () { return [run.from, run.to]; } } : { time: false },
        y: { range: fromZero }
      },
      axes: [
        time ? { label: "seconds after the load started", labelSize: 18 }
             : rate ? { label: "offered req/s", labelSize: 18 }
             : { label: "percentile", labelSize: 18, values: function (u, vals) { return vals.map(percentileLabel); } },
        { label: chart.unit, labelSize: 18, size: 52 }
      ],
      series: [{
        label: time ? "second" : rate ? "offered" : "percentile",
        value: function (u, v) {
          return v == null ? "-" : (time ? v.toFixed(1) + " s" : rate ? v.toFixed(1) + " req/s" : percentileLabel(v));
        }
      }].concat(chart.lines.map(function (l) {
        var line = {
          label: l.label, stroke: l.color, width: 2, scale: l.axis, spanGaps: true,
          dash: l.dashed ? [6, 4] : undefined, fill: l.filled ? l.color + "33" : undefined,
          value: function (u, v) { return v == null ? "-" : (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1)); }
        };
        if (rate) line.points = { show: true, size: 6 };
        return line;
      })),
      hooks: time ? { drawClear: [measuredBand(run)] } : {}
    };
    if (chart.unit2) {
      opts.scales.y2 = { range: fromZero };
      opts.axes.push({ scale: "y2", side: 1, label: chart.unit2, labelSize: 18, size: 52, grid: { show: false } });
    }
    new uPlot(opts, [chart.x].concat(chart.lines.map(function (l) { return l.values; })), target);
    var points = chart.lines.reduce(function (n, l) {
      return n + l.values.filter(function (v) { return v != null; }).length;
    }, 0);
    box.setAttribute("data-series", String(chart.lines.length));
    box.setAttribute("data-points", String(points));
  }

  data.runs.forEach(function (run) {
    var sync = uPlot.sync(run.id);
    run.charts.forEach(function (chart) { draw(run, chart, sync); });
  });
})();
