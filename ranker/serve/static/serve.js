// ranker serve: poll the retraining status while a job runs; reload the page when it ends;
// pointing at a discriminant highlights its span in the sentence and in the trees; the comment
// field counts its characters against the limit.
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
  function highlight(row, on) {
    var start = Number(row.dataset.start), end = Number(row.dataset.end);
    document.querySelectorAll("h1.sentence .w").forEach(function (w, k) {
      w.classList.toggle("hl", on && k >= start && k < end);
    });
    document.querySelectorAll('svg.tree text[data-span="' + start + "-" + end + '"]:not(.tag)').forEach(function (t) {
      t.classList.toggle("hl", on);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("#discriminants tr[data-start]").forEach(function (row) {
      row.addEventListener("mouseenter", function () { highlight(row, true); });
      row.addEventListener("mouseleave", function () { highlight(row, false); });
    });
    var comment = document.getElementById("comment"), limit = document.getElementById("comment-limit");
    if (comment && limit) {   // say how much of the limit is used; nothing is cut
      var count = function () {
        var n = comment.value.trim().length, most = Number(comment.dataset.limit);
        limit.textContent = n + " of at most " + most + " characters" + (n > most ? ": too long to save" : "");
        limit.classList.toggle("over", n > most);
      };
      comment.addEventListener("input", count);
      count();
    }
    var box = document.getElementById("retrain");
    if (box && box.dataset.state === "running") {
      box.dataset.wasRunning = "1";
      poll(box);
    }
  });
})();
