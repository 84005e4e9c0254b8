// Renders plotly figures built server-side: each element with data-figure="<id>" draws the JSON in <script id="<id>">.
// Figures inside a closed <details> are drawn when it first opens: plotly cannot size a chart it cannot see.
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  function draw(box) {
    const source = document.getElementById(box.dataset.figure);
    if (!source || !window.Plotly || box.dataset.drawn) { return; }
    box.dataset.drawn = "1";
    const figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(box, figure.data, figure.layout, { displayModeBar: false, responsive: true });
  }
  document.querySelectorAll("[data-figure]").forEach(function (box) {
    const folded = box.closest("details:not([open])");
    if (folded) {
      folded.addEventListener("toggle", function () { if (folded.open) { draw(box); } });
    } else {
      draw(box);
    }
  });
});
