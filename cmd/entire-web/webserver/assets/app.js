// entire web: enhancements only; every page reads without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  document.addEventListener("DOMContentLoaded", function () {
    // "Expand all" buttons open (or close) the details they name.
    document.querySelectorAll("button[data-toggle]").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var section = btn.closest("section") || document;
        var all = section.querySelectorAll(btn.getAttribute("data-toggle"));
        var open = !Array.prototype.every.call(all, function (d) { return d.open; });
        all.forEach(function (d) { d.open = open; });
        btn.textContent = open ? "Collapse all tool calls" : "Expand all tool calls";
      });
    });
    // The timeline's search filters as one types (the form still works).
    var q = document.getElementById("q");
    if (q) {
      q.addEventListener("input", function () {
        var needle = q.value.toLowerCase();
        document.querySelectorAll("li.cp").forEach(function (li) {
          var text = (li.getAttribute("data-prompt") || "").toLowerCase();
          li.hidden = needle !== "" && text.indexOf(needle) < 0;
        });
      });
    }
    // n / p follow the page's next and previous links.
    document.addEventListener("keydown", function (e) {
      if (e.target.closest("input, textarea, select")) { return; }
      var rel = e.key === "n" ? "next" : e.key === "p" ? "prev" : "";
      var a = rel && document.querySelector('a[rel="' + rel + '"]');
      if (a) { window.location.href = a.href; }
    });
  });
})();
