"""Argo CD health checks from definitions: one Lua script per group and kind.

Each script holds, per apiVersion, the definition's status rules translated to Lua
(:mod:`wlmap.export.lua`), evaluates them as :mod:`wlmap.workload.status` does, and maps
the statuses that hold to one Argo CD health (:data:`HEALTH`): the worst of them in Argo
CD's order, with the rule that decided it as the message. A rule whose expression does not
translate is left out of the script and named in its comments and in :attr:`refusals`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions import Definition
from wlmap.definitions.status import GenericStatus, StatusMatcher
from wlmap.export._lua_runtime import runtime_for
from wlmap.export.lua import NotTranslatable, lua_string, translate

__all__ = [
    "HEALTH",
    "NATIVE_GROUPS",
    "HealthScript",
    "Refusal",
    "config_key",
    "expected_health",
    "health_scripts",
]

# wlmap's status -> Argo CD's health. Argo CD sets Missing itself (no object).
HEALTH: dict[GenericStatus, str] = {
    GenericStatus.RUNNING: "Healthy",
    GenericStatus.COMPLETED: "Healthy",
    GenericStatus.INITIALIZING: "Progressing",
    GenericStatus.RESUMING: "Progressing",
    GenericStatus.SUSPENDING: "Progressing",
    GenericStatus.SUSPENDED: "Suspended",
    GenericStatus.FAILED: "Degraded",
    GenericStatus.DEGRADED: "Degraded",
}
# Argo CD's order of health, best first: of several statuses, the worst decides.
_ORDER = ("Healthy", "Suspended", "Progressing", "Degraded")
NO_STATUS = ("Progressing", "the object has no status yet")
NO_RULE = ("Unknown", "no status rule holds")
# Kubernetes' own groups, whose health Argo CD assesses in its own code.
NATIVE_GROUPS = frozenset({"", "apps", "batch"})
_BASE = "spec.structureDefinition.rootComponent.statusDefinition"


@dataclass(frozen=True)
class Refusal:
    """A status expression that does not translate: where it is and why."""

    definition: str
    field: str
    expression: str
    reason: str

    def __str__(self) -> str:
        return f"{self.definition}: {self.field}: {self.reason}"


@dataclass(frozen=True)
class HealthScript:
    """The health check of one group and kind (every version's definition in one)."""

    group: str
    kind: str
    script: str
    use_open_libs: bool
    definitions: tuple[str, ...]
    refusals: tuple[Refusal, ...]
    translated: int

    @property
    def key(self) -> str:
        """The ``argocd-cm`` key suffix, ``<group>_<Kind>`` (``Kind`` for the core group)."""
        return config_key(self.group, self.kind)


def config_key(group: str, kind: str) -> str:
    """Argo CD's key of a group and kind in ``resource.customizations.*.<key>``."""
    return f"{group}_{kind}" if group else kind


def rule_names(definition: Definition) -> dict[tuple[GenericStatus, int], str]:
    """Each matcher's field path, by its status and its index among that status's matchers
    (as the status report numbers them)."""
    names: dict[tuple[GenericStatus, int], str] = {}
    spec = definition.root.status_definition
    if spec is None:
        return names
    counts: dict[GenericStatus, int] = {}
    for field, status, matchers in spec.status_mappings.declared():
        for index in range(len(matchers)):
            names[(status, counts.get(status, 0))] = f"statusMappings.{field}[{index}]"
            counts[status] = counts.get(status, 0) + 1
    return names


def expected_health(
    definition: Definition,
    phases: Sequence[str],
    matched: Iterable[tuple[GenericStatus, int]],
    obj: Mapping[str, Any],
) -> tuple[str, str]:
    """The Argo CD health and message that wlmap's status report maps to (the mapping the
    scripts implement, written once in Python for tests and docs)."""
    names = rule_names(definition)
    held = [(HEALTH[status], names[(status, index)]) for status, index in matched]
    if not held:
        return NO_RULE if obj.get("status") else NO_STATUS
    worst = max((h for h, _ in held), key=_ORDER.index)
    rule = next(name for health, name in held if health == worst)
    return worst, f"{', '.join(phases)} ({rule})"


def health_scripts(definitions: Iterable[Definition]) -> list[HealthScript]:
    """One health script per group and kind of the definitions with a status definition."""
    by_kind: dict[tuple[str, str], list[Definition]] = {}
    for definition in definitions:
        gvk = definition.root_gvk
        if gvk is None or definition.root.status_definition is None:
            continue
        by_kind.setdefault((gvk.group, gvk.kind), []).append(definition)
    return [_script(group, kind, found) for (group, kind), found in sorted(by_kind.items())]


def _script(group: str, kind: str, definitions: list[Definition]) -> HealthScript:
    tables: list[str] = []
    refusals: list[Refusal] = []
    strings = False
    translated = 0
    for definition in definitions:
        table, found, needs, count = _definition_table(definition)
        tables.append(table)
        refusals.extend(found)
        strings = strings or needs
        translated += count
    header = [
        f"-- Argo CD health of {kind}" + (f".{group}" if group else "") + ", generated by wlmap",
        f"-- from {', '.join(d.name for d in definitions)}; do not edit.",
    ]
    header += [f"-- left out (does not translate): {r.field}: {r.reason}" for r in refusals]
    body = ["local DEFS = {}", *tables, _compact(_EVALUATE)]
    script = "\n".join([*header, runtime_for("\n".join(body)), *body])
    return HealthScript(
        group,
        kind,
        script + "\n",
        strings,
        tuple(d.name for d in definitions),
        tuple(refusals),
        translated,
    )


def _definition_table(definition: Definition) -> tuple[str, list[Refusal], bool, int]:
    spec = definition.root.status_definition
    assert spec is not None  # filtered by the caller
    gvk = definition.root_gvk
    assert gvk is not None
    refusals: list[Refusal] = []
    needs = False
    count = 0

    def filter_of(field: str, expression: str | None) -> str:
        nonlocal needs, count
        if expression is None:
            return "nil"
        try:
            lua = translate(expression)
        except NotTranslatable as exc:
            refusals.append(Refusal(definition.name, field, expression, str(exc)))
            return "false"
        needs = needs or lua.needs_string
        count += 1
        return lua.code

    phase = spec.phase_definition.path if spec.phase_definition else None
    conditions = spec.conditions_definition
    lines = [
        f"DEFS[{lua_string(gvk.api_version)}] = {{",
        f"  phase = {filter_of(f'{_BASE}.phaseDefinition.path', phase)},",
        "  conditions = "
        + filter_of(f"{_BASE}.conditionsDefinition.path", conditions.path if conditions else None)
        + ",",
    ]
    if conditions is not None:
        lines.append(
            "  fields = {"
            + ", ".join(
                f"{key} = {lua_string(name)}"
                for key, name in (
                    ("type", conditions.type_field_name),
                    ("status", conditions.status_field_name),
                    ("reason", conditions.reason_field_name),
                    ("message", conditions.message_field_name),
                )
            )
            + "},"
        )
    lines.append("  rules = {")
    for field, status, matchers in spec.status_mappings.declared():
        for index, matcher in enumerate(matchers):
            name = f"statusMappings.{field}[{index}]"
            expression = matcher.by_expression
            code = filter_of(
                f"{_BASE}.{name}.byExpression.expression",
                expression.expression if expression else None,
            )
            lines.append("    " + _rule(status, name, matcher, code))
    lines.append("  },\n}")
    return "\n".join(lines), refusals, needs, count


def _rule(status: GenericStatus, name: str, matcher: StatusMatcher, code: str) -> str:
    parts = [
        f"status = {lua_string(status.value)}",
        f"health = {lua_string(HEALTH[status])}",
        f"name = {lua_string(name)}",
    ]
    if matcher.by_phase is not None:
        parts.append(f"phase = {lua_string(matcher.by_phase)}")
    checks = []
    for condition in matcher.by_conditions or ():
        fields = [f"type = {lua_string(condition.type)}"]
        if condition.status is not None:
            fields.append(f"status = {lua_string(condition.status)}")
        if condition.reason is not None:
            fields.append(f"reason = {lua_string(condition.reason)}")
        checks.append("{" + ", ".join(fields) + "}")
    if checks:
        parts.append("conditions = {" + ", ".join(checks) + "}")
    if matcher.by_expression is not None:
        # false: the expression did not translate, and the rule never holds
        parts.append(f"expr = {code}")
        parts.append(f"expected = {lua_string(matcher.by_expression.expected_result)}")
    return "{" + ", ".join(parts) + "},"


def _compact(lua: str) -> str:
    """The Lua without comment lines and indentation (a ConfigMap holds every script)."""
    kept = (line.strip() for line in lua.splitlines())
    return "\n".join(line for line in kept if line and not line.startswith("--"))


# Evaluates the rules of the object's apiVersion as wlmap.workload.status does, and
# returns the health.
_EVALUATE = r"""
local HEALTH_ORDER = {Healthy = 1, Suspended = 2, Progressing = 3, Degraded = 4}
local OBJ = obj
if type(OBJ) ~= "table" then OBJ = {} end
local function first(f)
  if f == nil or f == false then return nil end
  local ok, res = pcall(f, OBJ, {})
  if not ok or res[1] == nil then return nil end
  return res[1]
end
local function result_text(f)
  local x = first(f)
  if x == nil or x == NULL then return nil end
  if x == true then return "true" end
  if x == false then return "false" end
  return text(x)
end
local function condition_list(def)
  local found = {}
  if def.conditions == nil or def.conditions == false then return found end
  local ok, outs = pcall(def.conditions, OBJ, {})
  if not ok then return found end
  local f = def.fields
  for _, out in ipairs(outs) do
    local items = {out}
    if kind(out) == "array" then items = out end
    for _, item in ipairs(items) do
      if kind(item) == "object" and kind(item[f.type]) == "string" then
        local c = {type = item[f.type]}
        for _, key in ipairs({"status", "reason", "message"}) do
          if kind(item[f[key]]) == "string" then c[key] = item[f[key]] end
        end
        found[c.type] = c
      end
    end
  end
  return found
end
local function holds(rule, phase, conds)
  if rule.phase ~= nil and phase ~= rule.phase then return false end
  for _, want in ipairs(rule.conditions or {}) do
    local c = conds[want.type]
    if c == nil then return false end
    if want.status ~= nil and c.status ~= want.status then return false end
    if want.reason ~= nil and c.reason ~= want.reason then return false end
  end
  if rule.expr ~= nil and result_text(rule.expr) ~= rule.expected then return false end
  return true
end
local hs = {}
local def = DEFS[OBJ.apiVersion]
if def == nil then
  hs.status = "Unknown"
  hs.message = "no wlmap definition for apiVersion " .. tostring(OBJ.apiVersion)
  return hs
end
local phase = result_text(def.phase)
local conds = condition_list(def)
local phases, seen, decided = {}, {}, nil
for _, rule in ipairs(def.rules) do
  if holds(rule, phase, conds) then
    if not seen[rule.status] then
      seen[rule.status] = true
      phases[#phases + 1] = rule.status
    end
    if decided == nil or HEALTH_ORDER[rule.health] > HEALTH_ORDER[decided.health] then
      decided = rule
    end
  end
end
if decided ~= nil then
  hs.status = decided.health
  hs.message = table.concat(phases, ", ") .. " (" .. decided.name .. ")"
  return hs
end
local st = OBJ.status
if st == nil or st == false or st == "" or st == 0 or (type(st) == "table" and next(st) == nil) then
  hs.status = "Progressing"
  hs.message = "the object has no status yet"
else
  hs.status = "Unknown"
  hs.message = "no status rule holds"
end
return hs
"""
