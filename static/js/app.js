// Hands htmx the CSRF token from the page's meta tag on every request, so
// that state-changing htmx requests pass Sked's CSRF check.
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) {
    event.detail.headers["X-CSRF-Token"] = meta.content;
  }
});

// The job form shows only the schedule fields of the chosen frequency, the
// fields of the chosen authentication, the end of the chosen kind and the
// error action's fields while it is wanted (hidden fields are left out of
// the job JSON by the server too). Without JavaScript every field shows.
function skedToggleSections() {
  var freq = document.getElementById("frequency");
  var auth = document.getElementById("auth_type");
  document.querySelectorAll("[data-show-freq]").forEach(function (el) {
    el.hidden = !!freq && el.dataset.showFreq.split(" ").indexOf(freq.value) < 0;
  });
  document.querySelectorAll("[data-show-auth]").forEach(function (el) {
    el.hidden = !!auth && el.dataset.showAuth.split(" ").indexOf(auth.value) < 0;
  });
  // data-show-if="id" shows an element while checkbox id is checked;
  // data-show-if="name=value" while that radio button is checked.
  document.querySelectorAll("[data-show-if]").forEach(function (el) {
    var cond = el.dataset.showIf.split("=");
    var input = cond.length === 1
      ? document.getElementById(cond[0])
      : document.querySelector('input[name="' + cond[0] + '"][value="' + cond[1] + '"]');
    el.hidden = !!input && !input.checked;
  });
}
document.addEventListener("DOMContentLoaded", skedToggleSections);
document.addEventListener("htmx:afterSettle", skedToggleSections);
document.addEventListener("change", function (event) {
  if (event.target.id === "frequency" || event.target.id === "auth_type" ||
      event.target.id === "error_action" || event.target.name === "end") {
    skedToggleSections();
  }
});

// A button with data-copy-target copies the value of that field (the job
// page's calendar feed URL) or the text of that element (a new API token)
// and says so.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-copy-target]");
  if (!button) {
    return;
  }
  var field = document.getElementById(button.dataset.copyTarget);
  if (!field) {
    return;
  }
  // A field's value, or the text of another element (a new token).
  var text = field.value !== undefined ? field.value : field.textContent;
  var select = function () {
    if (field.select) {
      field.select();
    } else {
      window.getSelection().selectAllChildren(field);
    }
  };
  var done = function () {
    button.textContent = "Copied";
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, select);
  } else {
    select();
    if (document.execCommand("copy")) {
      done();
    }
  }
});

// A chip shortcut (data-pick-name, data-pick-step) checks every step-th
// checkbox of that name, from 0 ("every 15 minutes": 0, 15, 30, 45); step
// 0 clears them. The change event updates the live preview.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-pick-step]");
  if (!button) {
    return;
  }
  var step = parseInt(button.dataset.pickStep, 10);
  var boxes = document.querySelectorAll('input[type="checkbox"][name="' + button.dataset.pickName + '"]');
  boxes.forEach(function (box) {
    box.checked = step > 0 && parseInt(box.value, 10) % step === 0;
  });
  if (boxes.length > 0) {
    boxes[0].dispatchEvent(new Event("change", { bubbles: true }));
  }
});

// The header's workspace switcher and its "More" menu are details
// disclosures of plain links (they work without JavaScript); Escape closes
// an open one and gives the focus back to its summary, and a click
// elsewhere closes it.
var headerMenus = "#ws-switcher[open], #nav-more[open]";
document.addEventListener("keydown", function (event) {
  if (event.key !== "Escape") {
    return;
  }
  document.querySelectorAll(headerMenus).forEach(function (open) {
    open.open = false;
    open.querySelector("summary").focus();
  });
});
document.addEventListener("click", function (event) {
  document.querySelectorAll(headerMenus).forEach(function (open) {
    if (!open.contains(event.target)) {
      open.open = false;
    }
  });
});

// The "All jobs" filter searches as the user types (its input events):
// the change event a text field fires when it loses focus would search
// again and redraw the results, dropping the jobs just checked in the
// bulk form. It is stopped before it reaches the form.
document.addEventListener("change", function (event) {
  var t = event.target;
  if (t.form && t.form.id === "all-jobs-filter" && (t.type === "search" || t.type === "text")) {
    event.stopPropagation();
  }
}, true);

// The "All jobs" bulk form: the header checkbox checks every row of the
// page, and a line says how many are checked (the server decides alone
// what is acted on: the checked ids, or every match with "all").
document.addEventListener("change", function (event) {
  var form = event.target.closest("#all-jobs-bulk");
  if (!form) {
    return;
  }
  var rows = form.querySelectorAll('input[name="id"]');
  if (event.target.id === "all-jobs-select-page") {
    rows.forEach(function (box) { box.checked = event.target.checked; });
  }
  var n = 0;
  rows.forEach(function (box) { if (box.checked) { n++; } });
  var page = document.getElementById("all-jobs-select-page");
  if (page) {
    page.checked = n > 0 && n === rows.length;
    page.indeterminate = n > 0 && n < rows.length;
  }
  var all = document.getElementById("all-jobs-select-all");
  var line = document.getElementById("all-jobs-selected");
  if (line) {
    line.textContent = all && all.checked ? "Every job that matches the filter is selected." :
      n === 0 ? "Check jobs below, or:" : n === 1 ? "1 job selected, or:" : n + " jobs selected, or:";
  }
});
