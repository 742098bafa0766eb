// Live updates: one server-sent event stream per open page, followed once a page's data
// says which change it includes (its version). Each change is handed to the page shown
// as a "wlmap-change" event; "wlmap-reload" asks it to load its data again.
"use strict";
(function () {
  let stream = null;
  function tell(name, detail) { document.dispatchEvent(new CustomEvent(name, { detail })); }
  window.wlmapLive = {
    follow(version) {
      if (stream || typeof version !== "number") return;
      stream = new EventSource(`/api/events?since=${version}`);
      stream.onopen = () => { document.body.dataset.live = "open"; };
      stream.onerror = () => { document.body.dataset.live = "reconnecting"; };
      stream.onmessage = (message) => tell("wlmap-change", JSON.parse(message.data));
      stream.addEventListener("reload", () => tell("wlmap-reload", null));
    },
  };
})();
