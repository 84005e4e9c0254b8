// Redraws a training run's curves from its metrics endpoint every few seconds until the run finishes.
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  const box = document.getElementById("curves");
  if (!box || box.dataset.finished === "true") { return; }
  function draw(figures) {
    Object.keys(figures).forEach(function (name) {
      const target = document.getElementById(name + "-curve");
      if (target && window.Plotly) { window.Plotly.react(target, figures[name].data, figures[name].layout); }
    });
  }
  function poll() {
    fetch(box.dataset.metricsUrl, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (!body) { return; }
        draw(body.figures);
        if (["succeeded", "failed", "cancelled"].indexOf(body.state) < 0) { window.setTimeout(poll, 5000); }
      })
      .catch(function () { window.setTimeout(poll, 10000); });
  }
  window.setTimeout(poll, 5000);
});
