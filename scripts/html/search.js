/* search.js -- the HTML edition's search box (scripts/html/build).

   Adds a search field to the navigation bar at the top of the page.  The
   index (search-index.js, written by scripts/html/search-index) is a script
   that sets window.BOOK_SEARCH; it is loaded when the field is first used,
   so that the pages work from file:// with no server and load nothing
   until a reader searches.  The index holds:
     s: the sections, [page#anchor, number, title, page title], in book order;
     w: for each word of the text, the sections it occurs in, as a string of
        base-36 numbers, each the distance from the previous one;
     c: the chunks, [page#anchor, number, name];
     i: the identifiers, [page#anchor, name].
   A section matches when each word of the query is in its title or in a
   word of its text (begins one, for a word of one or two letters); a chunk
   or an identifier when its name contains each word.  The results list the sections whose
   titles match, the identifiers (the shortest first), the chunks, then the
   sections whose text matches, in book order.  Typing "?q=words" after a
   page's address searches at once. */
(function () {
  'use strict';
  var nav = document.querySelector('nav.pagenav.top');
  if (!nav) return;
  var form = document.createElement('form');
  form.className = 'search';
  form.setAttribute('role', 'search');
  var input = document.createElement('input');
  input.type = 'search';
  input.placeholder = 'Search the book';
  input.setAttribute('aria-label', 'Search the book');
  input.autocomplete = 'off';
  var out = document.createElement('div');
  out.className = 'search-results';
  out.hidden = true;
  form.appendChild(input);
  form.appendChild(out);
  nav.appendChild(form);

  var I = null, words = null, loading = false, pending = '';

  function load() {
    if (I || loading) return;
    loading = true;
    var s = document.createElement('script');
    s.src = 'search-index.js';
    s.onload = function () {
      I = window.BOOK_SEARCH;
      words = Object.keys(I.w).sort();
      run(pending || input.value);
    };
    document.head.appendChild(s);
  }

  function terms(q) {
    return q.toLowerCase().split(/[^a-z0-9_]+/).filter(function (t) { return t.length > 0; });
  }

  // the sections in which some word of the text contains t (begins with
  // t, when t has less than three letters): "freelist" finds cpu_freelist
  function sectionsOf(t) {
    var set = {}, k, lo = 0, hi = words.length, found = [];
    if (t.length >= 3) {
      for (k = 0; k < words.length; k++) if (words[k].indexOf(t) >= 0) found.push(words[k]);
    } else {
      while (lo < hi) {	// the first word >= t
        var mid = (lo + hi) >> 1;
        if (words[mid] < t) lo = mid + 1; else hi = mid;
      }
      for (k = lo; k < words.length && words[k].lastIndexOf(t, 0) === 0; k++) found.push(words[k]);
    }
    found.forEach(function (w) {
      var p = I.w[w].split(' '), n = 0;
      for (var j = 0; j < p.length; j++) { n += parseInt(p[j], 36); set[n] = true; }
    });
    return set;
  }

  function esc(s) {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function item(href, label, note) {
    return '<li><a href="' + esc(href) + '">' + label + '</a>' +
      (note ? ' <span class="search-note">' + esc(note) + '</span>' : '') + '</li>';
  }

  function run(q) {
    pending = q;
    var ts = terms(q);
    if (!ts.length) { out.hidden = true; out.innerHTML = ''; return; }
    if (!I) { load(); return; }
    var all = function (name) {
      name = name.toLowerCase();
      return ts.every(function (t) { return name.indexOf(t) >= 0; });
    };
    var ids = I.i.filter(function (e) { return all(e[1]); });
    ids.sort(function (a, b) { return a[1].length - b[1].length; });
    var chunks = I.c.filter(function (e) { return all(e[2]); });
    // sections: every term in the text or the title; title matches first
    var sets = ts.map(sectionsOf), head = [], body = [];
    for (var n = 0; n < I.s.length; n++) {
      var title = I.s[n][2].toLowerCase(), inTitle = true, ok = true;
      for (var k = 0; k < ts.length; k++) {
        var t = ts[k], tw = title.indexOf(t) >= 0;
        inTitle = inTitle && tw;
        if (!tw && !sets[k][n]) { ok = false; break; }
      }
      if (ok) (inTitle ? head : body).push(I.s[n]);
    }
    var h = [];
    function group(name, list, max, f) {
      if (!list.length) return;
      h.push('<p class="search-kind">' + name + ' (' + list.length + ')</p><ul>');
      list.slice(0, max).forEach(function (e) { h.push(f(e)); });
      if (list.length > max) h.push('<li class="search-note">and ' + (list.length - max) + ' more</li>');
      h.push('</ul>');
    }
    function section(e) {
      return item(e[0], (e[1] ? '<span class="search-num">' + esc(e[1]) + '</span> ' : '') +
        esc(e[2]), e[3]);
    }
    group('Sections', head, 20, section);
    group('Identifiers', ids, 10, function (e) {
      return item(e[0], '<code>' + esc(e[1]) + '</code>');
    });
    group('Chunks', chunks, 15, function (e) {
      return item(e[0], '⟨' + esc(e[2]) + ' <span class="search-num">' + esc(e[1]) + '</span>⟩');
    });
    group('In the text', body, 25, section);
    out.innerHTML = h.length ? h.join('') : '<p class="search-note">Nothing found.</p>';
    out.hidden = false;
  }

  input.addEventListener('focus', load);
  input.addEventListener('input', function () { run(input.value); });
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { out.hidden = true; input.blur(); }
  });
  form.addEventListener('submit', function (e) {	// Enter: the first result
    e.preventDefault();
    var a = out.querySelector('a');
    if (a) window.location.href = a.href;
  });
  document.addEventListener('click', function (e) {
    if (!form.contains(e.target)) out.hidden = true;
  });
  var m = /[?&]q=([^&#]*)/.exec(window.location.search);
  if (m) {
    input.value = decodeURIComponent(m[1].replace(/\+/g, ' '));
    run(input.value);
  }
})();
