"""The Lua functions every translated expression calls: jq's values and operators.

Written for the plain Lua 5.1 state Argo CD gives a health script (base, table and
package libraries; ``string`` only with ``useOpenLibs``). Every loop walks a table of the
object or of a finite stream, so a script's time is bounded by the object's size; a jq
error is a Lua ``error`` with a table, caught where jq catches it (``try``, ``?``) and at
each status rule, where it means "does not hold", as it does in wlmap.
"""

from __future__ import annotations

import re
from functools import cache

# jq null is NULL inside streams (Lua tables cannot hold nil); fields that are absent or
# null in the object read as NULL. A table with t[1] (or no key) is an array.
RUNTIME = r"""
local NULL = setmetatable({}, {__tostring = function() return "null" end})
local function fail(m) error({jq = m}, 0) end
local function isarr(t) return next(t) == nil or t[1] ~= nil end
local function kind(x)
  if x == NULL or x == nil then return "null" end
  local t = type(x)
  if t == "boolean" then return "boolean" end
  if t == "number" then return "number" end
  if t == "string" then return "string" end
  if isarr(x) then return "array" end
  return "object"
end
local function truthy(x) return x ~= NULL and x ~= nil and x ~= false end
local function keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end
local RANK = {null = 0, boolean = 1, number = 3, string = 4, array = 5, object = 6}
local cmp
cmp = function(a, b)
  local ka, kb = kind(a), kind(b)
  local ra, rb = RANK[ka], RANK[kb]
  if ka == "boolean" then ra = a and 2 or 1 end
  if kb == "boolean" then rb = b and 2 or 1 end
  if ra ~= rb then return ra < rb and -1 or 1 end
  if ka == "number" or ka == "string" then
    if a == b then return 0 end
    return a < b and -1 or 1
  end
  if ka == "array" then
    local i = 1
    while a[i] ~= nil and b[i] ~= nil do
      local c = cmp(a[i], b[i])
      if c ~= 0 then return c end
      i = i + 1
    end
    if a[i] == nil and b[i] == nil then return 0 end
    return a[i] == nil and -1 or 1
  end
  if ka == "object" then
    local x, y = keys(a), keys(b)
    local c = cmp(x, y)
    if c ~= 0 then return c end
    for _, k in ipairs(x) do
      c = cmp(a[k], b[k])
      if c ~= 0 then return c end
    end
  end
  return 0
end
local function idx(a, k, opt)
  if a == NULL then return NULL end
  local ka, kk = kind(a), kind(k)
  if ka == "object" and kk == "string" then
    local v = a[k]
    if v == nil then return NULL end
    return v
  end
  if ka == "array" and kk == "number" then
    if k < 0 then k = #a + k end
    local v = a[math.floor(k) + 1]
    if v == nil then return NULL end
    return v
  end
  if ka == "array" and kk == "string" and next(a) == nil then return NULL end
  fail("Cannot index " .. ka .. " with " .. kk)
end
local function each(a)
  local ka = kind(a)
  if ka == "array" then
    local out = {}
    for i = 1, #a do out[i] = a[i] end
    return out
  end
  if ka == "object" then
    local out = {}
    for _, k in ipairs(keys(a)) do out[#out + 1] = a[k] end
    return out
  end
  fail("Cannot iterate over " .. ka)
end
local function len(a)
  local ka = kind(a)
  if ka == "null" then return 0 end
  if ka == "boolean" then fail("boolean has no length") end
  if ka == "number" then return math.abs(a) end
  if ka == "string" then
    if string then return #(string.gsub(a, "[\128-\191]", "")) end
    return #a
  end
  if ka == "array" then return #a end
  return #keys(a)
end
local function plus(a, b)
  if a == NULL then return b end
  if b == NULL then return a end
  local ka, kb = kind(a), kind(b)
  if ka ~= kb then fail("cannot add " .. ka .. " and " .. kb) end
  if ka == "number" then return a + b end
  if ka == "string" then return a .. b end
  if ka == "array" then
    local out = {}
    for i = 1, #a do out[#out + 1] = a[i] end
    for i = 1, #b do out[#out + 1] = b[i] end
    return out
  end
  if ka == "object" then
    local out = {}
    for k, v in pairs(a) do out[k] = v end
    for k, v in pairs(b) do out[k] = v end
    return out
  end
  fail("cannot add " .. ka .. " and " .. kb)
end
local function arith(op, a, b)
  if op == "+" then return plus(a, b) end
  if op == "==" then return cmp(a, b) == 0 end
  if op == "!=" then return cmp(a, b) ~= 0 end
  if op == "<" then return cmp(a, b) < 0 end
  if op == "<=" then return cmp(a, b) <= 0 end
  if op == ">" then return cmp(a, b) > 0 end
  if op == ">=" then return cmp(a, b) >= 0 end
  if kind(a) ~= "number" or kind(b) ~= "number" then
    fail("cannot apply " .. op .. " to " .. kind(a) .. " and " .. kind(b))
  end
  if op == "-" then return a - b end
  if op == "*" then return a * b end
  if b == 0 then fail("division by zero") end
  if op == "/" then return a / b end
  return math.fmod(math.floor(a), math.floor(b))
end
local tojson
tojson = function(x)
  local k = kind(x)
  if k == "null" then return "null" end
  if k == "boolean" then return x and "true" or "false" end
  if k == "number" then
    if x == math.floor(x) and math.abs(x) < 1e15 then return tostring(math.floor(x)) end
    return tostring(x)
  end
  if k == "string" then return '"' .. x .. '"' end
  local parts = {}
  if k == "array" then
    for i = 1, #x do parts[i] = tojson(x[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  for _, key in ipairs(keys(x)) do parts[#parts + 1] = '"' .. key .. '":' .. tojson(x[key]) end
  return "{" .. table.concat(parts, ",") .. "}"
end
local function text(x)
  if kind(x) == "string" then return x end
  return tojson(x)
end
local function need(x, k, what)
  if kind(x) ~= k then fail(what .. " needs a " .. k .. ", not " .. kind(x)) end
  return x
end
-- stream combinators: a filter is function(x, v) returning a list of outputs
local function ID(x) return {x} end
local function K(c) return function() return {c} end end
local function EMPTY() return {} end
local function PIPE(l, r)
  return function(x, v)
    local out = {}
    for _, a in ipairs(l(x, v)) do
      for _, b in ipairs(r(a, v)) do out[#out + 1] = b end
    end
    return out
  end
end
local function COMMA(l, r)
  return function(x, v)
    local out = l(x, v)
    for _, b in ipairs(r(x, v)) do out[#out + 1] = b end
    return out
  end
end
local function CATCH(f, x, v)
  local ok, res = pcall(f, x, v)
  if ok then return res, nil end
  if type(res) == "table" and res.jq ~= nil then return nil, res.jq end
  error(res, 0)
end
local function TRY(body, handler)
  return function(x, v)
    local res, err = CATCH(body, x, v)
    if res then return res end
    if handler then return handler(err, v) end
    return {}
  end
end
local function INDEX(t, k, opt)
  return function(x, v)
    local out = {}
    for _, key in ipairs(k(x, v)) do
      for _, a in ipairs(t(x, v)) do
        if opt then
          local ok, r = pcall(idx, a, key)
          if ok then out[#out + 1] = r end
        else
          out[#out + 1] = idx(a, key)
        end
      end
    end
    return out
  end
end
-- .a.b.c of the input, and .k of a filter's outputs
local function P(...)
  local path = {...}
  return function(x)
    for i = 1, #path do x = idx(x, path[i]) end
    return {x}
  end
end
local function F(t, k)
  return function(x, v)
    local out = {}
    for _, a in ipairs(t(x, v)) do out[#out + 1] = idx(a, k) end
    return out
  end
end
local function ITER(t, opt)
  return function(x, v)
    local out = {}
    for _, a in ipairs(t(x, v)) do
      local ok, items = pcall(each, a)
      if not ok and not opt then error(items, 0) end
      if ok then for _, b in ipairs(items) do out[#out + 1] = b end end
    end
    return out
  end
end
local function BIN(op, l, r)
  return function(x, v)
    local out = {}
    for _, b in ipairs(r(x, v)) do
      for _, a in ipairs(l(x, v)) do out[#out + 1] = arith(op, a, b) end
    end
    return out
  end
end
local function NEG(f)
  return function(x, v)
    local out = {}
    for _, a in ipairs(f(x, v)) do out[#out + 1] = -need(a, "number", "negation") end
    return out
  end
end
local function AND(l, r)
  return function(x, v)
    local out = {}
    for _, a in ipairs(l(x, v)) do
      if not truthy(a) then out[#out + 1] = false
      else for _, b in ipairs(r(x, v)) do out[#out + 1] = truthy(b) end end
    end
    return out
  end
end
local function OR(l, r)
  return function(x, v)
    local out = {}
    for _, a in ipairs(l(x, v)) do
      if truthy(a) then out[#out + 1] = true
      else for _, b in ipairs(r(x, v)) do out[#out + 1] = truthy(b) end end
    end
    return out
  end
end
local function ALT(l, r)
  return function(x, v)
    local out = {}
    local res = CATCH(l, x, v)
    for _, a in ipairs(res or {}) do if truthy(a) then out[#out + 1] = a end end
    if #out > 0 then return out end
    return r(x, v)
  end
end
local function IF(c, t, e)
  return function(x, v)
    local out = {}
    for _, a in ipairs(c(x, v)) do
      local branch = truthy(a) and t or e
      for _, b in ipairs(branch(x, v)) do out[#out + 1] = b end
    end
    return out
  end
end
local function ARRAY(f)
  return function(x, v) return {f(x, v)} end
end
local function OBJECT(entries)
  return function(x, v)
    local outs = {{}}
    for _, e in ipairs(entries) do
      local nxt = {}
      for _, o in ipairs(outs) do
        for _, k in ipairs(e[1](x, v)) do
          need(k, "string", "object key")
          for _, val in ipairs(e[2](x, v)) do
            local c = {}
            for kk, vv in pairs(o) do c[kk] = vv end
            c[k] = val
            nxt[#nxt + 1] = c
          end
        end
      end
      outs = nxt
    end
    return outs
  end
end
local function VAR(name)
  return function(_, v)
    local val = v[name]
    if val == nil then fail("$" .. name .. " is not defined") end
    return {val}
  end
end
local function BIND(src, name, body)
  return function(x, v)
    local out = {}
    for _, a in ipairs(src(x, v)) do
      local w = setmetatable({[name] = a}, {__index = v})
      for _, b in ipairs(body(x, w)) do out[#out + 1] = b end
    end
    return out
  end
end
local function REDUCE(src, name, init, update)
  return function(x, v)
    local out = {}
    for _, acc in ipairs(init(x, v)) do
      local cur = {acc}
      for _, a in ipairs(src(x, v)) do
        local w = setmetatable({[name] = a}, {__index = v})
        local nxt = {}
        for _, c in ipairs(cur) do
          local r = update(c, w)
          if #r > 0 then nxt[#nxt + 1] = r[#r] end
        end
        cur = nxt
      end
      for _, c in ipairs(cur) do out[#out + 1] = c end
    end
    return out
  end
end
local function INTERP(parts)
  return function(x, v)
    local outs = {""}
    for _, p in ipairs(parts) do
      local nxt = {}
      for _, s in ipairs(outs) do
        if type(p) == "string" then nxt[#nxt + 1] = s .. p
        else for _, a in ipairs(p(x, v)) do nxt[#nxt + 1] = s .. text(a) end end
      end
      outs = nxt
    end
    return outs
  end
end
-- one output per input: f applied to the input
local function MAP1(fn)
  return function(x) return {fn(x)} end
end
-- f(arg) for each output of the argument
local function MAP2(fn, arg)
  return function(x, v)
    local out = {}
    for _, a in ipairs(arg(x, v)) do out[#out + 1] = fn(x, a) end
    return out
  end
end
local function SELECT(f)
  return function(x, v)
    local out = {}
    for _, a in ipairs(f(x, v)) do if truthy(a) then out[#out + 1] = x end end
    return out
  end
end
local function ANY(gen, cond, all)
  return function(x, v)
    for _, a in ipairs(gen(x, v)) do
      for _, c in ipairs(cond(a, v)) do
        if truthy(c) ~= all then return {not all} end
      end
    end
    return {all}
  end
end
local function FIRST(f)
  return function(x, v)
    local r = f(x, v)
    if #r == 0 then return {} end
    return {r[1]}
  end
end
local function MAP(f)
  return function(x, v)
    local out = {}
    for _, a in ipairs(each(x)) do
      for _, b in ipairs(f(a, v)) do out[#out + 1] = b end
    end
    return {out}
  end
end
local function ERROR(f)
  return function(x, v)
    local r = f and f(x, v) or {x}
    fail(text(r[1] or NULL))
  end
end
local function fold(x, pick)
  local best = NULL
  for _, a in ipairs(need(x, "array", "max/min")) do
    if best == NULL or pick(cmp(a, best)) then best = a end
  end
  return best
end
-- test(re) as the Lua patterns of the regex (wlmap.export._regex): any of them matches
local function TEST(patterns)
  return function(x)
    need(x, "string", "test")
    for _, p in ipairs(patterns) do
      if string.find(x, p) ~= nil then return {true} end
    end
    return {false}
  end
end
local function utf8char(cp)
  if cp < 128 then return string.char(cp) end
  if cp < 2048 then return string.char(192 + math.floor(cp / 64), 128 + cp % 64) end
  return string.char(224 + math.floor(cp / 4096), 128 + math.floor(cp / 64) % 64, 128 + cp % 64)
end
local JSON_ESCAPES = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
-- fromjson: each step moves on in the text, and nesting is limited
local function fromjson(s)
  need(s, "string", "fromjson")
  local pos, depth = 1, 0
  local function ws() pos = string.find(s, "[^ \t\r\n]", pos) or (#s + 1) end
  local function at() return string.sub(s, pos, pos) end
  local function str()
    local out, i = {}, pos + 1
    while true do
      local j = string.find(s, '["\\]', i)
      if j == nil then fail("unfinished JSON string") end
      out[#out + 1] = string.sub(s, i, j - 1)
      if string.sub(s, j, j) == '"' then
        pos = j + 1
        return table.concat(out)
      end
      local e = string.sub(s, j + 1, j + 1)
      if JSON_ESCAPES[e] then
        out[#out + 1] = JSON_ESCAPES[e]
        i = j + 2
      elseif e == "u" then
        local cp = tonumber(string.sub(s, j + 2, j + 5), 16)
        if cp == nil then fail("bad \\u escape in JSON") end
        out[#out + 1] = utf8char(cp)
        i = j + 6
      else
        fail("bad escape in JSON")
      end
    end
  end
  local value
  local function items(close, add)
    depth = depth + 1
    if depth > 64 then fail("JSON nested too deeply") end
    pos = pos + 1
    ws()
    if at() == close then
      pos = pos + 1
      depth = depth - 1
      return
    end
    while true do
      add()
      ws()
      local d = at()
      pos = pos + 1
      if d == close then
        depth = depth - 1
        return
      end
      if d ~= "," then fail("expected ',' in JSON") end
    end
  end
  value = function()
    ws()
    local c = at()
    if c == "{" then
      local o = {}
      items("}", function()
        ws()
        if at() ~= '"' then fail("expected a key in JSON") end
        local k = str()
        ws()
        if at() ~= ":" then fail("expected ':' in JSON") end
        pos = pos + 1
        local v = value()
        if v ~= NULL then o[k] = v end
      end)
      return o
    end
    if c == "[" then
      local a = {}
      items("]", function() a[#a + 1] = value() end)
      return a
    end
    if c == '"' then return str() end
    for word, v in pairs({["true"] = true, ["false"] = false, null = NULL}) do
      if string.sub(s, pos, pos + #word - 1) == word then
        pos = pos + #word
        return v
      end
    end
    local num = string.match(s, "^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    if num == nil or tonumber(num) == nil then fail("not JSON at " .. pos) end
    pos = pos + #num
    return tonumber(num)
  end
  local result = value()
  ws()
  if pos <= #s then fail("text after JSON at " .. pos) end
  return result
end
local BUILTIN = {
  ["not"] = function(x) return not truthy(x) end,
  length = len,
  type = kind,
  add = function(x)
    local acc = NULL
    for _, a in ipairs(each(x)) do acc = plus(acc, a) end
    return acc
  end,
  max = function(x) return fold(x, function(c) return c >= 0 end) end,
  min = function(x) return fold(x, function(c) return c < 0 end) end,
  keys = function(x)
    need(x, "object", "keys")
    return keys(x)
  end,
  tostring = text,
  tonumber = function(x)
    if kind(x) == "number" then return x end
    local n = tonumber(need(x, "string", "tonumber"))
    if n == nil then fail("cannot parse '" .. x .. "' as a number") end
    return n
  end,
  ascii_downcase = function(x) return string.lower(need(x, "string", "ascii_downcase")) end,
  ascii_upcase = function(x) return string.upper(need(x, "string", "ascii_upcase")) end,
  fromjson = fromjson,
  first = function(x) return idx(x, 0) end,
  last = function(x) return idx(x, -1) end,
}
local BUILTIN2 = {
  has = function(x, k)
    if kind(x) == "object" then return x[need(k, "string", "has")] ~= nil end
    return need(x, "array", "has")[need(k, "number", "has") + 1] ~= nil
  end,
  join = function(x, sep)
    local parts = {}
    for _, a in ipairs(each(x)) do
      if a == NULL then parts[#parts + 1] = ""
      elseif kind(a) == "string" then parts[#parts + 1] = a
      elseif kind(a) == "number" or kind(a) == "boolean" then parts[#parts + 1] = tojson(a)
      else fail("cannot join " .. kind(a)) end
    end
    return table.concat(parts, need(sep, "string", "join"))
  end,
  startswith = function(x, p)
    return string.sub(need(x, "string", "startswith"), 1, #p) == need(p, "string", "startswith")
  end,
  endswith = function(x, p)
    need(x, "string", "endswith")
    return #p == 0 or string.sub(x, -#need(p, "string", "endswith")) == p
  end,
  ltrimstr = function(x, p)
    if kind(x) == "string" and kind(p) == "string" and string.sub(x, 1, #p) == p then
      return string.sub(x, #p + 1)
    end
    return x
  end,
  rtrimstr = function(x, p)
    if kind(x) == "string" and kind(p) == "string" and #p > 0 and #p <= #x
        and string.sub(x, -#p) == p then
      return string.sub(x, 1, #x - #p)
    end
    return x
  end,
}
"""

# The built-ins whose Lua needs the string library (and so useOpenLibs).
NEEDS_STRING = frozenset(
    {
        "ascii_downcase",
        "ascii_upcase",
        "startswith",
        "endswith",
        "ltrimstr",
        "rtrimstr",
        "fromjson",
        "test",
    }
)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINED = re.compile(r"local (?:function )?([A-Za-z_][A-Za-z0-9_]*)")


@cache
def _chunks() -> tuple[tuple[str, str], ...]:
    """The runtime's top-level definitions in order: (name, compacted text)."""
    chunks: list[tuple[str, list[str]]] = []
    for line in RUNTIME.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        defined = _DEFINED.match(line)
        if defined and line.startswith("local "):
            chunks.append((defined.group(1), [stripped]))
        else:
            chunks[-1][1].append(stripped)
    return tuple((name, "\n".join(lines)) for name, lines in chunks)


def runtime_for(code: str) -> str:
    """The runtime's definitions that ``code`` uses, with those they use, in order."""
    chunks = dict(_chunks())
    wanted: set[str] = set()
    pending = [n for n in set(_NAME.findall(code)) if n in chunks]
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        pending.extend(n for n in set(_NAME.findall(chunks[name])) if n in chunks)
    return "\n".join(text for name, text in _chunks() if name in wanted)
