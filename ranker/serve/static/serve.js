// ranker serve: poll the retraining status while a job runs; reload the page when it ends;
// pointing at a discriminant highlights its span in the sentence and in the trees; the comment
// field counts its characters against the limit; the keys of the sentence page (accept, reject,
// undo, confirm, next, previous, moving between discriminants) press its buttons and links, so
// an annotator's hands stay on the keyboard and the server sees the same forms as a click.
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
  // cls: "hl" for the span pointed at, "sel" for the discriminant the keys act on
  function highlight(row, on, cls) {
    var start = Number(row.dataset.start), end = Number(row.dataset.end);
    cls = cls || "hl";
    document.querySelectorAll("h1.sentence .w").forEach(function (w, k) {
      w.classList.toggle(cls, on && k >= start && k < end);
    });
    document.querySelectorAll('svg.tree text[data-span="' + start + "-" + end + '"]:not(.tag)').forEach(function (t) {
      t.classList.toggle(cls, on);
    });
  }
  // key -> what it does on the sentence page; the page lists them (#keys)
  var KEYS = {
    "a": function () { press(selected(), "button.accept"); },
    "r": function () { press(selected(), "button.reject"); },
    "u": function () { press(document, "button.undo"); },
    "c": function () { press(document, "button.confirm"); },
    "n": function () { follow("next"); },
    "p": function () { follow("previous"); },
    "j": function () { move(1); },
    "ArrowDown": function () { move(1); },
    "k": function () { move(-1); },
    "ArrowUp": function () { move(-1); }
  };
  function rows() { return Array.prototype.slice.call(document.querySelectorAll("#discriminants tr[data-key]")); }
  function selected() { return document.querySelector("#discriminants tr.selected"); }
  // scroll: bring the row into view (a key moved to it); never on loading, where the page must
  // not move under a pointer about to click
  function select(row, scroll) {
    var old = selected();
    if (old) { old.classList.remove("selected"); highlight(old, false, "sel"); }
    if (row) {
      row.classList.add("selected");
      highlight(row, true, "sel");
      if (scroll) { row.scrollIntoView({block: "nearest"}); }
    }
  }
  function move(step) {
    var all = rows(), k = all.indexOf(selected());
    if (all.length) { select(all[Math.max(0, Math.min(all.length - 1, k + step))], true); }
  }
  function press(scope, css) {
    var button = scope && scope.querySelector(css);
    if (button && !button.disabled) { button.click(); }
  }
  function follow(id) {
    var link = document.getElementById(id);
    if (link) { window.location.href = link.href; }
  }
  function onKey(e) {
    var t = e.target, tag = t && t.tagName;
    if (e.ctrlKey || e.metaKey || e.altKey || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" ||
        (t && t.isContentEditable)) {
      return;   // typing a comment or a name is no command
    }
    var act = KEYS[e.key];
    if (act) { e.preventDefault(); act(); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (document.getElementById("keys")) {   // the sentence page
      select(rows()[0]);
      document.addEventListener("keydown", onKey);
    }
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
