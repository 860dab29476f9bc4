/* The compile report's script (inlined into every page by src/report/html.c).  The pages read
   without it; it only highlights what a row links to: hovering an element with
   data-links="id id ..." marks those elements and brings each into view inside its own scrolling
   pane (a side effect shows the residual instructions that replay it and its source line; an
   instruction shows its source line). */
"use strict";

(function () {
  function linked(el) {
    return (el.getAttribute("data-links") || "").split(" ").filter(Boolean)
      .map(function (id) { return document.getElementById(id); })
      .filter(Boolean);
  }

  /* scroll t's pane (not the page) so that t is visible */
  function reveal(t) {
    var pane = t.closest(".scroll");
    if (!pane) return;
    var top = t.offsetTop, bottom = top + t.offsetHeight;
    if (top < pane.scrollTop || bottom > pane.scrollTop + pane.clientHeight)
      pane.scrollTop = Math.max(0, top - pane.clientHeight / 3);
  }

  function mark(el, on) {
    var first = {};
    linked(el).forEach(function (t) {
      t.classList.toggle("hl", on);
      var pane = t.closest(".scroll");
      if (on && pane && !first[pane.parentNode.id]) {
        first[pane.parentNode.id] = true;
        reveal(t);
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    /* the source pane shows the whole file: start at the compiled function */
    document.querySelectorAll("[data-first]").forEach(function (pane) {
      var first = document.getElementById(pane.getAttribute("data-first"));
      var scroll = pane.querySelector(".scroll");
      if (first && scroll && !location.hash) scroll.scrollTop = Math.max(0, first.offsetTop - 8);
    });
    document.querySelectorAll("[data-links]").forEach(function (el) {
      el.addEventListener("mouseenter", function () { mark(el, true); });
      el.addEventListener("mouseleave", function () { mark(el, false); });
    });
    document.documentElement.classList.add("js-ready");   /* (the browser test looks for it) */
  });
})();
