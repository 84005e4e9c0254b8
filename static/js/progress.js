// Live progress of job rows: every element with data-job-progress="<url>" polls that JSON endpoint while the job runs,
// redraws its <progress>, state badges (its own and the heading's), message and wait note, and reloads the page once
// when the job finishes (to show results).
(function () {
  "use strict";
  const POLL_MS = 1500;

  function redraw(box, job) {
    const bar = box.querySelector("progress");
    if (bar) { bar.value = job.progress; bar.textContent = Math.round(job.progress * 100) + "%"; }
    box.querySelectorAll("[data-field]").forEach(function (node) {
      const field = node.dataset.field;
      if (field === "state") {
        node.textContent = job.cancel_requested && !job.finished ? "cancelling" : job.state;
        node.className = "state " + job.state;
      } else if (field === "percent") {
        node.textContent = Math.round(job.progress * 100) + "%";
      } else if (field === "message") {
        // The time only once the job ends: a running job's elapsed seconds alone read as a stray figure.
        const time = job.finished && job.duration_s !== null ? job.duration_s.toFixed(1) + " s" : "";
        node.textContent = job.message && time ? job.message + " · " + time : job.message || time;
      } else if (field === "wait") {
        node.textContent = job.wait;
        node.hidden = !job.wait;
        node.classList.toggle("flag", job.wait.indexOf("no worker") !== -1);
      }
    });
    // A page's heading badge for the same job (data-job-state) says what the bar says.
    document.querySelectorAll("[data-job-state='" + box.dataset.jobProgress + "']").forEach(function (node) {
      node.textContent = job.state;
      node.className = "state " + job.state;
    });
  }

  // Results a job writes as it goes (a batch's trajectories, one per finished episode): when its progress moves,
  // re-read this page and swap in the fresh copy of each element the selector names.
  function refresh(selector) {
    fetch(window.location.href, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        const fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll(selector).forEach(function (node) {
          const replacement = node.id ? fresh.getElementById(node.id) : null;
          if (replacement) { node.replaceWith(document.importNode(replacement, true)); }
        });
      })
      .catch(function () { /* the next move of the bar tries again */ });
  }

  function watch(box) {
    const url = box.dataset.jobProgress;
    const reloadWhenDone = box.dataset.reloadWhenDone !== undefined;
    let lastProgress = Number(box.querySelector("progress") ? box.querySelector("progress").value : 0);
    function poll() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
        .then(function (job) {
          if (box.dataset.refresh && job.progress !== lastProgress) { refresh(box.dataset.refresh); }
          lastProgress = job.progress;
          redraw(box, job);
          if (!job.finished) { window.setTimeout(poll, POLL_MS); }
          else if (reloadWhenDone) { window.location.reload(); }
        })
        .catch(function () { window.setTimeout(poll, POLL_MS * 4); });
    }
    window.setTimeout(poll, POLL_MS);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-job-progress]").forEach(function (box) {
      if (box.dataset.finished !== "true") { watch(box); }
    });
  });
})();
