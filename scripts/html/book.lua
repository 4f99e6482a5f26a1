-- book.lua -- the pandoc filter of the HTML edition (make html).
--
-- Reads one page's LaTeX as scripts/html/nw2pandoc wrote it and turns the
-- book's own marks into HTML: code chunks (\nwchunk{LABEL}: highlighted C,
-- the chunk's name and number, its links), chunk uses in the prose
-- (\nwuse), cross-references (\ref, with the PDF's numbers from its .aux),
-- labels (anchors), the numbers of chapters, sections, figures, tables and
-- exercises, the userspace notes and the labs' marks.  Metadata: page (the
-- page's name), bookdata (nw2pandoc's book.lua), tocout (where to write the
-- page's entries for the table of contents).
local B         -- the data nw2pandoc wrote
local page      -- this page's name
local chapter   -- this page's chapter number (a letter: an appendix), or nil (the preface)
local counters = {section = 0, subsection = 0, figure = 0, table = 0, exercise = 0}
local toc = {}
local labs = {}
local unknown = {}
local floats = {}   -- the figures and tables, for the lists on the title page
local labsdir      -- where the rendered handouts are (a lab without one is not linked)

local function esc(s)
  return (s:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'):gsub('"', '&quot;'))
end

local function href(label)
  local l = B.labels[label]
  if not l then return nil end
  if l.page == page then return '#' .. label end
  return l.page .. '.html#' .. label
end

local function num_of(label)
  local l = B.labels[label]
  return l and l.num ~= '' and l.num or nil
end

-- on one line: the contents and the lists of figures and tables read it
-- back a line an entry (pandoc's writer would wrap it at 72 columns)
local function inlines_html(ils)
  local h = pandoc.write(pandoc.Pandoc({pandoc.Plain(ils)}), 'html', {wrap_text = 'none'})
  return (h:gsub('\n$', ''):gsub('\n', ' '))
end

-- a caption for the lists on the title page: without its links and notes
local function list_html(ils)
  local span = pandoc.walk_inline(pandoc.Span(ils), {
    Link = function(l) return l.content end, Note = function() return {} end,
    Span = function(sp) if sp.identifier ~= '' then return sp.content end end})
  return inlines_html(span.content)
end

local function chunk_link(label)
  local c = B.chunks[label]
  local h = href(label) or ('#' .. label)
  return '<a href="' .. h .. '">' .. (c and c.num or '?') .. '</a>'
end

local function list_links(labels)
  local t = {}
  for i, l in ipairs(labels) do t[#t + 1] = chunk_link(l) end
  if #t <= 1 then return t[1] or '' end
  if #t == 2 then return t[1] .. ' and ' .. t[2] end
  return table.concat(t, ', ', 1, #t - 1) .. ', and ' .. t[#t]
end

local function plural(n, s) return n == 1 and s or s .. 's' end

-- the highlighter's classes of comments, strings and characters
local plain_classes = {co = true, ['do'] = true, an = true, cv = true, al = true,
  st = true, vs = true, ss = true, ch = true, sc = true}

local function chunk_block(label)
  local c = B.chunks[label]
  if not c then
    io.stderr:write('book.lua: no chunk ' .. label .. '\n')
    return pandoc.Para({pandoc.Str('[missing chunk]')})
  end
  local cb = pandoc.CodeBlock(c.code:gsub('\n$', ''), {id = 'c-' .. label,
    class = c.lang ~= '' and c.lang or nil})
  local code = pandoc.write(pandoc.Pandoc({cb}), 'html')
  -- noweb's finduses marks an identifier wherever its word occurs; in a
  -- comment or a string (as the highlighter classes them) the word is
  -- text, not a use, and is not linked
  code = code:gsub('(<span class="(%a%a)">)([^<]*)</span>', function(open, cls, text)
    if plain_classes[cls] then text = text:gsub('NWSUB(%d+)Q', 'NWTXT%1Q') end
    return open .. text .. '</span>'
  end)
  code = code:gsub('NWTXT(%d+)Q', function(n)
    local s = c.subs[tonumber(n) + 1]
    if s:match('^<a class="nwident"') then return (s:gsub('<[^>]*>', '')) end
    return s
  end)
  code = code:gsub('NWSUB(%d+)Q', function(n) return c.subs[tonumber(n) + 1] end)
  -- the definition line, as the PDF sets it: number, name, the chunks that
  -- use it in parentheses, the previous and next definitions
  local right = {}
  if #c.used > 0 then
    local u = {}
    for _, l in ipairs(c.used) do u[#u + 1] = chunk_link(l) end
    right[#right + 1] = '(' .. table.concat(u, ' ') .. ')'
  end
  if c.prev then right[#right + 1] = '<a class="chunk-prev" href="' .. (href(c.prev) or '#') ..
    '" title="previous definition">◁ ' .. B.chunks[c.prev].num .. '</a>' end
  if c.next then right[#right + 1] = '<a class="chunk-next" href="' .. (href(c.next) or '#') ..
    '" title="next definition">' .. B.chunks[c.next].num .. ' ▷</a>' end
  local head = string.format(
    '<div class="chunk-head"><span class="chunk-title"><a class="chunk-num" href="#%s" ' ..
    'title="chunk %s">%s</a> <span class="chunk-name">⟨%s <a href="%s">%s</a>⟩%s</span></span>' ..
    '<span class="chunk-links">%s</span></div>',
    label, c.num, c.num, c.name, href(c.ref) or '#', c.refnum, c.cont and '+≡' or '≡',
    table.concat(right, ' '))
  local x = {}
  if #c.also > 0 then
    x[#x + 1] = 'This definition is continued in ' .. plural(#c.also, 'chunk') .. ' ' ..
      list_links(c.also) .. '.'
  end
  if #c.used > 0 then
    x[#x + 1] = 'This code is used in ' .. plural(#c.used, 'chunk') .. ' ' ..
      list_links(c.used) .. '.'
  elseif c.notused then
    x[#x + 1] = 'Root chunk (not used in this document): a file that ./tangle writes.'
  end
  if #c.defs > 0 then
    local d = {}
    for _, id in ipairs(c.defs) do
      d[#d + 1] = '<a href="identifiers.html#ident-' .. id:gsub('[^%w_]', '_') .. '"><code>' ..
        esc(id) .. '</code></a>'
    end
    x[#x + 1] = 'Defines ' .. table.concat(d, ', ') .. '.'
  end
  local foot = #x > 0 and ('<div class="chunk-xref">' .. table.concat(x, ' ') .. '</div>') or ''
  return pandoc.RawBlock('html', '<div class="chunk" id="' .. label .. '">\n' .. head .. '\n' ..
    code .. foot .. '\n</div>')
end

local filter  -- forward
local raw_inline

local function read_latex(s)
  local doc = pandoc.read(s, 'latex+raw_tex')
  return pandoc.walk_block(pandoc.Div(doc.blocks), filter).content
end

raw_inline = function(el)
  if el.format ~= 'latex' and el.format ~= 'tex' then return nil end
  local t = el.text
  local cmd, arg = t:match('^\\(%a+)%s*{(.*)}$')
  -- pandoc may hand over a command with a group that follows it:
  -- \label{x}{Text}; the group is the text's
  local c1, a1, rest = t:match('^\\(%a+){([^{}]*)}(.+)$')
  if (c1 == 'label' or c1 == 'ref' or c1 == 'nwuse') and rest then
    local r = raw_inline(pandoc.RawInline('latex', '\\' .. c1 .. '{' .. a1 .. '}'))
    local blocks = read_latex(rest)
    local ils = {r}
    if blocks[1] and blocks[1].content then
      for _, x in ipairs(blocks[1].content) do ils[#ils + 1] = x end
    end
    return ils
  end
  if cmd == 'ref' or cmd == 'autoref' then
    local n = num_of(arg)
    if not n then
      io.stderr:write('book.lua: ' .. page .. ': undefined reference ' .. arg .. '\n')
      return pandoc.Str('??')
    end
    return pandoc.Link(n, href(arg), '', {class = 'ref'})
  elseif cmd == 'label' then
    return pandoc.Span({}, {id = arg})
  elseif cmd == 'nwuse' then
    local c = B.chunks[arg]
    local name = c and c.name or arg
    return pandoc.RawInline('html', '<span class="nwuse">⟨<a href="' ..
      (href(arg) or '#') .. '">' .. name .. ' ' .. (c and c.num or '?') .. '</a>⟩</span>')
  elseif cmd == 'exercise' then
    counters.exercise = counters.exercise + 1
    local n = (chapter or 0) .. '.' .. counters.exercise
    return pandoc.Span({pandoc.Strong({pandoc.Str('Exercise ' .. n)}), pandoc.Space(),
      pandoc.Emph({pandoc.Str('(' .. arg .. ').')}), pandoc.Space()},
      {id = 'exercise-' .. n, class = 'exercise'})
  elseif cmd == 'nwchunk' then
    return pandoc.RawInline('html', '[chunk ' .. arg .. ']')
  elseif t:match('^\\cite') then
    return nil
  end
  local name = t:match('^\\(%a+)') or t
  local drop = {footnotesize = 1, small = 1, scriptsize = 1, normalsize = 1, hfill = 1,
    centering = 1, raggedright = 1, medskip = 1, smallskip = 1, bigskip = 1, par = 1,
    nopagebreak = 1, newpage = 1, clearpage = 1, noindent = 1, vspace = 1, hspace = 1,
    linebreak = 1, pagebreak = 1, enlargethispage = 1, quad = 1, qquad = 1, relax = 1,
    allowbreak = 1, nobreak = 1, ignorespaces = 1, strut = 1}
  if not drop[name] then unknown[name] = (unknown[name] or 0) + 1 end
  return {}
end

local function caption_prefix(kind, label)
  counters[kind] = counters[kind] + 1
  local n = label and num_of(label) or ((chapter or 0) .. '.' .. counters[kind])
  return n, {pandoc.Span({pandoc.Str((kind == 'figure' and 'Figure ' or 'Table ') .. n ..
    ':')}, {class = 'caption-number'}), pandoc.Space()}
end

local function prepend(list, items)
  for i = #items, 1, -1 do table.insert(list, 1, items[i]) end
  return list
end

local function raw_block(el)
  if el.format ~= 'latex' and el.format ~= 'tex' then return nil end
  local t = el.text
  local lab = t:match('^\\nwchunk{([^}]*)}%s*$')
  if lab then return chunk_block(lab) end
  local inner = t:match('^\\begin{usnote}(.*)\\end{usnote}%s*$')
  if inner then
    local blocks = read_latex(inner)
    if blocks[1] and blocks[1].content then
      prepend(blocks[1].content, {pandoc.Strong({pandoc.Str('Userspace'), pandoc.Space(),
        pandoc.Str('note.')}), pandoc.Space()})
    end
    return pandoc.Div(blocks, {class = 'usnote'})
  end
  local name, task = t:match('^\\begin{nwlab}([^\n]*)\n(.*)\\end{nwlab}%s*$')
  if name then
    local f = labsdir and io.open(labsdir .. '/' .. name .. '.html')
    local lname = pandoc.Code(name)
    if f then
      f:close()
      labs[#labs + 1] = name
      lname = pandoc.Link({lname}, 'labs/' .. name .. '.html')
    end
    local ils = {pandoc.Str('Lab'), pandoc.Space(), lname, pandoc.Space(),
      pandoc.Str('writes'), pandoc.Space(), pandoc.Str('the'), pandoc.Space(),
      pandoc.Str('next'), pandoc.Space(), pandoc.Str('chunk:'), pandoc.Space()}
    local blocks = read_latex(task)
    if blocks[1] and blocks[1].content then
      for _, x in ipairs(blocks[1].content) do ils[#ils + 1] = x end
    end
    ils[#ils + 1] = pandoc.Str('.')
    return pandoc.Div({pandoc.Para(ils)}, {class = 'lab-mark'})
  end
  local fid, body = t:match('^\\begin{nwfigure}([^\n]*)\n(.*)\\end{nwfigure}%s*$')
  if fid then
    local cap, lab = body:match('\\nwcaption(%b{})(.*)$')
    body = body:gsub('\\nwcaption%b{}.*$', '')
    local parts = {}
    for l in body:gmatch('\\begin{nwlisting}(.-)\\end{nwlisting}') do
      parts[#parts + 1] = pandoc.Div(read_latex(l), {class = 'listing'})
    end
    local label = lab and lab:match('\\label{([^}]*)}')
    local n, pre = caption_prefix('figure', label)
    local capb = read_latex(cap:sub(2, -2))
    local capils = capb[1] and capb[1].content or {}
    floats[#floats + 1] = {kind = 'figure', n = n, id = label or fid, html = list_html(capils)}
    prepend(capils, pre)
    return pandoc.Div({pandoc.Div(parts, {class = 'listings'}),
      pandoc.Div({pandoc.Plain(capils)}, {class = 'figcaption'})},
      {id = label or fid, class = 'figure listing-figure'})
  end
  local env = t:match('^\\begin{(%a+)}')
  if env == 'minipage' or env == 'quote' or env == 'center' then
    local innerb = t:match('^\\begin{%a+}%b[]%b{}(.*)\\end{%a+}%s*$') or
      t:match('^\\begin{%a+}(.*)\\end{%a+}%s*$')
    if innerb then return pandoc.Div(read_latex(innerb), {class = env}) end
  end
  local cmd = t:match('^\\(%a+)') or t
  local drop = {centering = 1, small = 1, footnotesize = 1, scriptsize = 1, medskip = 1,
    smallskip = 1, bigskip = 1, noindent = 1, par = 1, raggedright = 1, hfill = 1,
    nopagebreak = 1, clearpage = 1, newpage = 1, vspace = 1}
  if not drop[cmd] then
    unknown['block:' .. (env or cmd)] = (unknown['block:' .. (env or cmd)] or 0) + 1
    io.stderr:write('book.lua: ' .. page .. ': dropped ' .. t:sub(1, 60):gsub('\n', ' ') .. '\n')
  end
  return {}
end

local function para(el)
  if #el.content == 1 and el.content[1].t == 'RawInline' then
    local lab = el.content[1].text:match('^\\nwchunk{([^}]*)}$')
    if lab then return chunk_block(lab) end
  end
  -- an implicit figure: number its caption
  if #el.content == 1 and el.content[1].t == 'Image' and el.content[1].title == 'fig:' then
    local img = el.content[1]
    local label = img.identifier ~= '' and img.identifier or nil
    local n, pre = caption_prefix('figure', label)
    local cap = pandoc.List(img.caption)
    floats[#floats + 1] = {kind = 'figure', n = n, id = label or ('figure-' .. n),
      html = list_html(cap)}
    prepend(cap, pre)
    return pandoc.Div({pandoc.Para({pandoc.Image({pandoc.Str('Figure ' .. n)}, img.src, '')}),
      pandoc.Div({pandoc.Plain(cap)}, {class = 'figcaption'})},
      {id = label or ('figure-' .. n), class = 'figure'})
  end
  return nil
end

-- A table with a caption is numbered as LaTeX numbers it (in order, in
-- its chapter; tests/html compares with the PDF's list of tables); its
-- label, if any, is on the Div around it (see div).
local function table_(el)
  local cap = el.caption.long
  if #cap == 0 then return nil end
  local n, pre = caption_prefix('table', nil)
  if el.identifier == '' then el.identifier = 'table-' .. n end
  floats[#floats + 1] = {kind = 'table', n = n, id = el.identifier,
    html = list_html(cap[1].content or {})}
  prepend(cap[1].content, pre)
  return el
end

local function div(el)
  if el.identifier:match('^tab:') and el.content[1] and el.content[1].t == 'Table' then
    el.classes:insert('table')
    return el
  end
  return nil
end

local function header(el)
  -- a chapter's measuring programs (NN-name-measuring) are sections of
  -- the Measuring appendix, and the kernel services it emulates (NN-name-env)
  -- sections of the environment's: their page has no \chapter, and pandoc
  -- makes its \section a level-1 heading
  if page:match('%-measuring$') or page:match('%-env$') then el.level = el.level + 1 end
  if el.classes:includes('unnumbered') then return nil end
  local prefix
  local label = el.identifier
  if el.level == 1 then
    if chapter then prefix = (type(chapter) == 'string' and 'Appendix ' or 'Chapter ') .. chapter end
  elseif el.level == 2 then
    counters.section = counters.section + 1
    counters.subsection = 0
    prefix = num_of(label) or ((chapter or 0) .. '.' .. counters.section)
  elseif el.level == 3 then
    counters.subsection = counters.subsection + 1
    prefix = num_of(label) or ((chapter or 0) .. '.' .. counters.section .. '.' ..
      counters.subsection)
  end
  if prefix and chapter then
    if el.level == 1 then
      el.content = prepend(el.content, {pandoc.Span({pandoc.Str(prefix)},
        {class = 'header-number'}), pandoc.LineBreak()})
    else
      el.content = prepend(el.content, {pandoc.Span({pandoc.Str(prefix)},
        {class = 'header-number'}), pandoc.Space()})
    end
  end
  if el.level <= 2 then
    local ils = pandoc.List(el.content)
    toc[#toc + 1] = {level = el.level, id = el.identifier, html = inlines_html(
      pandoc.walk_inline(pandoc.Span(ils), {LineBreak = function() return pandoc.Space() end}).content)}
  end
  return el
end

filter = {RawInline = raw_inline, RawBlock = raw_block, Para = para, Div = div,
  Header = header, Table = table_}

function Pandoc(doc)
  page = pandoc.utils.stringify(doc.meta.page)
  B = dofile(pandoc.utils.stringify(doc.meta.bookdata))
  labsdir = doc.meta.labsdir and pandoc.utils.stringify(doc.meta.labsdir)
  for _, p in ipairs(B.pages) do if p.name == page then chapter = p.number end end
  -- a table float of several tabulars (chapter 14's wall times) reaches
  -- us as several labelled tables with one caption: keep the first's
  -- label and caption, and the others as plain tables under it
  local tabs = {}
  local parts = pandoc.walk_block(pandoc.Div(doc.blocks), {Div = function(el)
    if not el.identifier:match('^tab:') then return nil end
    if not tabs[el.identifier] then tabs[el.identifier] = true; return nil end
    return pandoc.walk_block(pandoc.Div(el.content), {Table = function(t)
      t.caption = {long = pandoc.List(), short = nil}
      return t
    end}).content
  end}).content
  local blocks = pandoc.walk_block(pandoc.Div(parts), filter).content
  -- the page title: the first header's text
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      local ils = pandoc.walk_inline(pandoc.Span(b.content),
        {LineBreak = function() return pandoc.Str(': ') end}).content
      doc.meta.pagetitle = pandoc.utils.stringify(ils)
      break
    end
  end
  if #labs > 0 then
    local seen, ils = {}, {pandoc.Str('Labs'), pandoc.Space(), pandoc.Str('of'), pandoc.Space(),
      pandoc.Str('this'), pandoc.Space(), pandoc.Str('chapter:'), pandoc.Space()}
    local first = true
    for _, l in ipairs(labs) do
      if not seen[l] then
        seen[l] = true
        if not first then ils[#ils + 1] = pandoc.Str(','); ils[#ils + 1] = pandoc.Space() end
        first = false
        ils[#ils + 1] = pandoc.Link({pandoc.Code(l)}, 'labs/' .. l .. '.html')
      end
    end
    ils[#ils + 1] = pandoc.Str(' (the handouts).')
    local pos = 1
    for i, b in ipairs(blocks) do if b.t == 'Header' then pos = i + 1; break end end
    table.insert(blocks, pos, pandoc.Div({pandoc.Para(ils)}, {class = 'chapter-labs'}))
  end
  if doc.meta.tocout then
    local f = io.open(pandoc.utils.stringify(doc.meta.tocout), 'w')
    for _, e in ipairs(toc) do
      f:write(e.level, '\t', e.id, '\t', e.html, '\n')
    end
    f:close()
    f = io.open(pandoc.utils.stringify(doc.meta.tocout):gsub('toc%-', 'floats-'), 'w')
    for _, e in ipairs(floats) do
      f:write(e.kind, '\t', e.n, '\t', e.id, '\t', e.html:gsub('[\t\n]', ' '), '\n')
    end
    f:close()
  end
  for k, n in pairs(unknown) do
    io.stderr:write('book.lua: ' .. page .. ': dropped \\' .. k .. ' (' .. n .. 'x)\n')
  end
  if page == 'bibliography' then blocks = {pandoc.Div(blocks, {class = 'bibliography'})} end
  doc.blocks = blocks
  return doc
end
