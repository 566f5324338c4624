// ranker serve: poll the retraining status while a job runs; reload the page when it ends.
"use strict";
(function () {
  function poll(box) {
    var bar = document.getElementById("retrain-progress");
    var msg = document.getElementById("retrain-message");
    fetch(box.dataset.status, {credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        bar.value = s.progress;
        msg.textContent = s.message;
        box.dataset.state = s.state;
        if (s.state === "running") {
          setTimeout(function () { poll(box); }, 500);
        } else if (box.dataset.wasRunning === "1") {
          window.location.reload();   // the ranking changed: show it
        }
      })
      .catch(function () { msg.textContent = "lost contact with the server"; });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("retrain");
    if (box && box.dataset.state === "running") {
      box.dataset.wasRunning = "1";
      poll(box);
    }
  });
})();
