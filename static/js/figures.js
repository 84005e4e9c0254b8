// Renders plotly figures built server-side: each element with data-figure="<id>" draws the JSON in <script id="<id>">.
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  document.querySelectorAll("[data-figure]").forEach(function (box) {
    const source = document.getElementById(box.dataset.figure);
    if (!source || !window.Plotly) { return; }
    const figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(box, figure.data, figure.layout, { displayModeBar: false, responsive: true });
  });
});
