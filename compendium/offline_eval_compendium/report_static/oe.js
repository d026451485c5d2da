/* offline-eval report: the ledger's filters, search, sorting and pages, all kept in the URL.

   ledger.html?paper=yi&status=differs&q=auc&sort=-ours&page=2 opens on exactly that view; the page with no
   query opens on the rows that differ (the view a reader looks at first), and says so. */
(function () {
  var DEFAULT = { status: 'differs' };
  var COLS = { claim: 0, printed: 1, ours: 2, status: 3 };
  function rowsOf(table) { return Array.prototype.slice.call(table.querySelectorAll('tbody tr')); }
  function cellText(tr, col) {
    var td = tr.children[COLS[col]];
    return td ? td.textContent.trim() : '';
  }
  function number(text) {
    var m = /^[<>~]?\s*([-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(text.replace(/\u2212/g, '-'));
    return m ? parseFloat(m[1].replace(/,/g, '')) : NaN;
  }
  function state() {
    var s = { q: '', sort: '', page: 0, filters: {} };
    var params = new URLSearchParams(location.search);
    var given = Array.from(params.keys()).length > 0;
    document.querySelectorAll('select.oe-filter').forEach(function (sel) {
      var v = given ? (params.get(sel.dataset.col) || '') : (DEFAULT[sel.dataset.col] || '');
      s.filters[sel.dataset.col] = v;
    });
    s.q = params.get('q') || '';
    s.sort = params.get('sort') || '';
    s.page = Math.max(0, (parseInt(params.get('page') || '1', 10) || 1) - 1);
    s.isDefault = !given;
    return s;
  }
  function writeUrl(s) {
    var params = new URLSearchParams();
    Object.keys(s.filters).forEach(function (c) { if (s.filters[c]) { params.set(c, s.filters[c]); } });
    if (s.q) { params.set('q', s.q); }
    if (s.sort) { params.set('sort', s.sort); }
    if (s.page > 0) { params.set('page', String(s.page + 1)); }
    var query = params.toString();
    // every filter off is a view of its own ("all rows"), not the default view of what differs
    if (!query) { query = 'all'; }
    history.replaceState(null, '', location.pathname + '?' + query + location.hash);
  }
  function sortRows(table, key) {
    var tbody = table.querySelector('tbody');
    var rows = rowsOf(table);
    rows.forEach(function (tr, i) { if (tr.dataset.order === undefined) { tr.dataset.order = String(i); } });
    var col = key.replace(/^-/, ''), sign = key.charAt(0) === '-' ? -1 : 1;
    rows.sort(function (a, b) {
      if (!COLS.hasOwnProperty(col)) { return a.dataset.order - b.dataset.order; }
      var x = cellText(a, col), y = cellText(b, col), nx = number(x), ny = number(y), c;
      if (!isNaN(nx) && !isNaN(ny)) { c = nx - ny; }
      else if (!isNaN(nx) || !isNaN(ny)) { c = isNaN(nx) ? 1 : -1; }
      else { c = x.localeCompare(y); }
      return c * sign || a.dataset.order - b.dataset.order;
    });
    rows.forEach(function (tr) { tbody.appendChild(tr); });
    table.querySelectorAll('th[data-sort]').forEach(function (th) {
      th.setAttribute('aria-sort', th.dataset.sort === col ? (sign > 0 ? 'ascending' : 'descending') : 'none');
    });
  }
  function update(table, s) {
    var q = s.q.toLowerCase();
    var matching = rowsOf(table).filter(function (tr) {
      return Object.keys(s.filters).every(function (c) { return !s.filters[c] || tr.dataset[c] === s.filters[c]; })
        && (!q || tr.textContent.toLowerCase().indexOf(q) >= 0);
    });
    var size = parseInt(table.dataset.pageSize || '0', 10) || matching.length || 1;
    var pages = Math.max(1, Math.ceil(matching.length / size));
    s.page = Math.min(Math.max(s.page, 0), pages - 1);
    rowsOf(table).forEach(function (tr) { tr.style.display = 'none'; });
    matching.slice(s.page * size, (s.page + 1) * size).forEach(function (tr) { tr.style.display = ''; });
    var n = document.getElementById('oe-count');
    if (n) {
      var total = rowsOf(table).length;
      n.textContent = matching.length + ' of ' + total + (total === 1 ? ' row' : ' rows') + (pages > 1 ? ', page ' + (s.page + 1) + ' of ' + pages : '');
      if (s.isDefault) {
        n.textContent += ': the rows that differ, first. ';
        var all = document.createElement('a');
        all.href = '?all';
        all.textContent = 'Show all rows';
        all.id = 'oe-show-all';
        n.appendChild(all);
      }
    }
    var nav = table.parentNode.querySelector('.oe-pager');
    if (nav) {
      nav.innerHTML = '';
      for (var i = 0; i < pages && pages > 1; i++) {
        var b = document.createElement('button');
        b.type = 'button';
        b.textContent = String(i + 1);
        if (i === s.page) { b.setAttribute('aria-current', 'page'); }
        b.addEventListener('click', (function (k) { return function () { s.page = k; s.isDefault = false; update(table, s); }; })(i));
        nav.appendChild(b);
      }
    }
    if (!s.isDefault) { writeUrl(s); }
  }
  document.addEventListener('DOMContentLoaded', function () {
    var table = document.querySelector('table.oe-ledger[data-page-size]');
    if (!table) { return; }
    var s = state();
    document.querySelectorAll('select.oe-filter').forEach(function (sel) {
      sel.value = s.filters[sel.dataset.col] || '';
      sel.addEventListener('change', function () {
        s.filters[sel.dataset.col] = sel.value; s.page = 0; s.isDefault = false; update(table, s);
      });
    });
    var search = document.getElementById('oe-search');
    if (search) {
      search.value = s.q;
      search.addEventListener('input', function () { s.q = search.value; s.page = 0; s.isDefault = false; update(table, s); });
    }
    table.querySelectorAll('th[data-sort]').forEach(function (th) {
      th.tabIndex = 0;
      th.title = 'sort by ' + th.dataset.sort;
      var go = function () {
        s.sort = s.sort === th.dataset.sort ? '-' + th.dataset.sort : th.dataset.sort;
        s.isDefault = false; sortRows(table, s.sort); update(table, s);
      };
      th.addEventListener('click', go);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
    });
    if (s.sort) { sortRows(table, s.sort); }
    var hash = decodeURIComponent(location.hash.slice(1));
    if (hash && document.getElementById(hash)) {
      // a link to one row: show it, whatever the default view would hide
      if (s.isDefault) { Object.keys(s.filters).forEach(function (c) { s.filters[c] = ''; }); s.isDefault = false;
        document.querySelectorAll('select.oe-filter').forEach(function (sel) { sel.value = ''; }); }
      var idx = rowsOf(table).filter(function (tr) {
        return Object.keys(s.filters).every(function (c) { return !s.filters[c] || tr.dataset[c] === s.filters[c]; });
      }).findIndex(function (tr) { return tr.id === hash; });
      if (idx >= 0) { s.page = Math.floor(idx / parseInt(table.dataset.pageSize, 10)); }
    }
    update(table, s);
    if (hash && document.getElementById(hash)) { document.getElementById(hash).scrollIntoView(); }
  });
})();
