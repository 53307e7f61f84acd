// Starts Swagger UI on vane's docs page. The page passes its settings as
// data- attributes of this script element, so that no inline script is
// needed and the page can forbid them (Content-Security-Policy).
(function () {
  "use strict";
  var script = document.currentScript;
  var extra = {};
  try {
    extra = JSON.parse(script.getAttribute("data-config") || "{}");
  } catch (e) {
    console.error("vane docs: bad data-config", e);
  }
  window.addEventListener("load", function () {
    var config = {
      url: script.getAttribute("data-spec-url"),
      dom_id: "#swagger-ui",
      deepLinking: true,
      // No call to the public validator service: the page works offline.
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      layout: "BaseLayout"
    };
    for (var k in extra) {
      if (Object.prototype.hasOwnProperty.call(extra, k)) {
        config[k] = extra[k];
      }
    }
    window.ui = SwaggerUIBundle(config);
  });
})();
