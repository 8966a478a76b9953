// Interactive time-series charts of a `ccsim report` page (uPlot).
// Each page's series.js sets window.CCSIM_SERIES to a list of runs, each
// {title, charts: [{title, ylabel, note, x: [...], series: [{label, y: [...]}]}]};
// null in y is a gap (a flow not yet started). Drag to zoom, double-click
// to reset, hover to read values in the legend.
(function () {
  "use strict";
  var COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function draw() {
    var root = document.getElementById("series-view");
    var runs = window.CCSIM_SERIES;
    if (!root || !runs || typeof uPlot === "undefined") return;
    var width = Math.max(480, Math.min(root.clientWidth || 900, 1100));
    runs.forEach(function (run) {
      var box = el("div", "series-run");
      box.appendChild(el("h3", null, run.title));
      root.appendChild(box);
      run.charts.forEach(function (chart) {
        var div = el("div", "series-chart");
        box.appendChild(div);
        var series = [{label: "time (s)"}];
        var data = [chart.x];
        chart.series.forEach(function (s, i) {
          series.push({label: s.label, stroke: COLOURS[i % COLOURS.length], width: 1, spanGaps: false});
          data.push(s.y);
        });
        new uPlot({
          title: chart.title, width: width, height: 260,
          scales: {x: {time: false}},
          axes: [{label: "time (s)"}, {label: chart.ylabel}],
          series: series
        }, data, div);
        if (chart.note) box.appendChild(el("p", "muted", chart.note));
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else draw();
})();
