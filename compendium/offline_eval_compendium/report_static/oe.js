/* offline-eval report: the ledger's filters and pages. */
(function () {
  function rowsOf(table) { return Array.prototype.slice.call(table.querySelectorAll('tbody tr')); }
  function update(table, page) {
    var sel = {};
    document.querySelectorAll('select.oe-filter').forEach(function (s) { sel[s.dataset.col] = s.value; });
    var matching = rowsOf(table).filter(function (tr) {
      return Object.keys(sel).every(function (c) { return !sel[c] || tr.dataset[c] === sel[c]; });
    });
    var size = parseInt(table.dataset.pageSize || '0', 10) || matching.length || 1;
    var pages = Math.max(1, Math.ceil(matching.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    rowsOf(table).forEach(function (tr) { tr.style.display = 'none'; });
    matching.slice(page * size, (page + 1) * size).forEach(function (tr) { tr.style.display = ''; });
    var n = document.getElementById('oe-count');
    if (n) {
      n.textContent = matching.length + ' rows' + (pages > 1 ? ', page ' + (page + 1) + ' of ' + pages : '');
    }
    var nav = table.parentNode.querySelector('.oe-pager');
    if (nav) {
      nav.innerHTML = '';
      for (var i = 0; i < pages && pages > 1; i++) {
        var b = document.createElement('button');
        b.type = 'button';
        b.textContent = String(i + 1);
        if (i === page) { b.setAttribute('aria-current', 'page'); }
        b.addEventListener('click', (function (k) { return function () { update(table, k); }; })(i));
        nav.appendChild(b);
      }
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    var table = document.querySelector('table.oe-ledger[data-page-size]');
    if (!table) { return; }
    var hash = decodeURIComponent(location.hash.slice(1));
    var start = 0;
    if (hash) {
      var idx = rowsOf(table).findIndex(function (tr) { return tr.id === hash; });
      if (idx >= 0) { start = Math.floor(idx / parseInt(table.dataset.pageSize, 10)); }
    }
    document.querySelectorAll('select.oe-filter').forEach(function (s) {
      s.addEventListener('change', function () { update(table, 0); });
    });
    update(table, start);
    if (hash && document.getElementById(hash)) { document.getElementById(hash).scrollIntoView(); }
  });
})();
