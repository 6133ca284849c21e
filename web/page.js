// Page glue, bundled before the app's code (--pre-js): canvas sizing for high-DPI screens, the
// URL hash both ways, the #a11y text, window.ropeviz for scripts and tests, and clear messages
// when WebGL2 is missing or the app fails.
var Module = typeof Module !== 'undefined' ? Module : {};
(function () {
  'use strict';
  var canvas = document.getElementById('canvas');
  var statusBox = document.getElementById('status');
  var statusText = document.getElementById('status-text');
  var a11y = document.getElementById('a11y');
  var app = 0;           // the C++ Web pointer, set by rvStarted
  var frames = 0;
  var resolveReady, rejectReady;
  var ready = new Promise(function (res, rej) { resolveReady = res; rejectReady = rej; });
  ready.catch(function () {});  // a page without WebGL2 still has a settled promise, not an unhandled one

  function fail(message) {
    statusBox.classList.remove('hidden');
    statusBox.classList.add('error');
    statusText.textContent = message;
    a11y.textContent = message;
    rejectReady(new Error(message));
  }

  function call(name, ret, types, args) { return Module.ccall(name, ret, types, args); }
  function decode(text) {  // a hostile or truncated %-escape must not throw
    try { return decodeURIComponent(text); } catch (e) { return text; }
  }

  // Backing store = CSS size x devicePixelRatio, so text is crisp; CSS keeps the layout size.
  function resize() {
    if (!app) return;
    var ratio = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(window.innerWidth * ratio)), h = Math.max(1, Math.round(window.innerHeight * ratio));
    call('rv_web_set_scale', null, ['number', 'number'], [app, ratio]);
    if (canvas.width !== w || canvas.height !== h) Module.setCanvasSize(w, h);
  }

  function applyHash() {
    if (!app) return;
    var notes = call('rv_web_apply', 'string', ['number', 'string'], [app, decode(location.hash)]);
    if (notes) console.info('ropeviz: ' + notes.trim().split('\n').join('; '));
  }

  Module.canvas = canvas;
  Module.print = function (text) { console.log(text); };
  Module.printErr = function (text) { console.warn(text); };
  Module.onAbort = function (what) { fail('ropeviz stopped: ' + what + '. Reload the page to start again.'); };

  var probe = document.createElement('canvas').getContext('webgl2');
  if (!probe) {
    Module.noInitialRun = true;
    fail('This browser cannot run ropeviz: it has no WebGL2. Try a current Chrome, Firefox, Safari or Edge, ' +
         'or enable hardware acceleration.');
  }

  Module.rvStarted = function (ptr) {
    app = ptr;
    resize();
    applyHash();
  };
  Module.rvFatal = function (message) { fail('ropeviz could not start: ' + message); };
  Module.rvStateChanged = function (hash, text) {
    if (decode(location.hash.slice(1)) !== hash) history.replaceState(null, '', '#' + hash);
    a11y.textContent = text;
  };
  Module.rvDownload = function (name, mime, text) {
    var a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: mime }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  };
  Module.rvCopyLink = function (ptr) {
    var note = function (text) { call('rv_web_note', null, ['number', 'string'], [ptr, text]); };
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      note('this browser offers no clipboard here: copy the link from the address bar');
      return;
    }
    navigator.clipboard.writeText(location.href).then(
      function () { note('copied the link to this view'); },
      function (e) { note('the browser refused the clipboard (' + e.message + '): copy the link from the address bar'); });
  };
  Module.rvFrameDrawn = function (n) {
    frames = n;
    if (n === 1) {
      statusBox.classList.add('hidden');
      resolveReady();
    }
  };

  window.addEventListener('resize', resize);
  (function watchRatio() {  // devicePixelRatio changes with zoom and when moving between screens
    if (!window.matchMedia) return;
    var mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
    var onChange = function () { resize(); watchRatio(); };
    if (mq.addEventListener) mq.addEventListener('change', onChange, { once: true });
  })();
  window.addEventListener('hashchange', applyHash);
  // Emscripten's GLFW listens for mouseup on the canvas only: a release elsewhere would leave a drag stuck.
  window.addEventListener('mouseup', function (e) {
    if (e.target === canvas) return;
    canvas.dispatchEvent(new MouseEvent('mouseup', e));
  }, true);

  window.ropeviz = {
    ready: ready,
    frames: function () { return frames; },
    state: function () { return app ? JSON.parse(call('rv_web_state', 'string', ['number'], [app])) : null; },
    // Sets parameters as the UI would (same keys, limits and notes as the URL hash); returns state().
    set: function (partial) {
      if (!app) throw new Error('ropeviz is not running yet: await window.ropeviz.ready');
      if (partial === null || typeof partial !== 'object' || Array.isArray(partial))
        throw new TypeError('set() expects an object such as {position: 100}');
      var pairs = Object.keys(partial).map(function (key) {
        var v = partial[key];
        if (typeof v !== 'number' && typeof v !== 'string')
          throw new TypeError('set(): ' + key + ' must be a number or a string');
        return key + '=' + String(v).replace(/[&=]/g, '');
      });
      call('rv_web_apply', 'string', ['number', 'string'], [app, pairs.join('&')]);
      return window.ropeviz.state();
    },
    rect: function (id) {
      return app ? JSON.parse(call('rv_web_rect', 'string', ['number', 'string'], [app, String(id)])) : null;
    },
  };
})();
