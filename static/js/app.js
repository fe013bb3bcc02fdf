// Hands htmx the CSRF token from the page's meta tag on every request, so
// that state-changing htmx requests pass Sked's CSRF check.
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) {
    event.detail.headers["X-CSRF-Token"] = meta.content;
  }
});
