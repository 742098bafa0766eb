{{/*
The served namespaces listed in the values: sorted, each once, joined by commas ("" when
none is listed), as the operator's WLMAP_NAMESPACES and the kustomize overlay write them.
*/}}
{{- define "wlmap.namespaces" -}}
{{- .Values.namespaces.list | default list | uniq | sortAlpha | join "," -}}
{{- end -}}

{{/*
The namespaces whose RoleBinding of ClusterRole wlmap-operator the release makes under a
selector (namespaces.bind): sorted, each once, joined by commas ("" when none). With a
list, the listed namespaces are bound already, and a namespace bound but not listed would
be read and never served: refused.
*/}}
{{- define "wlmap.bound" -}}
{{- if and .Values.namespaces.bind .Values.namespaces.list -}}
{{- fail "namespaces.bind: the listed namespaces (namespaces.list) are bound already; bind names namespaces a selector serves, for a release without a list" -}}
{{- end -}}
{{- .Values.namespaces.bind | default list | uniq | sortAlpha | join "," -}}
{{- end -}}

{{/*
The placement levels, joined by commas; the values must name at least one.
*/}}
{{- define "wlmap.placementLevels" -}}
{{- if not .Values.placement.levels -}}
{{- fail "placement.levels: placement.enabled needs the node-label keys of the topology, coarsest first (e.g. [topology.kubernetes.io/zone, kubernetes.io/hostname])" -}}
{{- end -}}
{{- .Values.placement.levels | join "," -}}
{{- end -}}

{{/*
A CEL expression: whether variables.namespaceLabels matches a label selector (k=v, k==v,
k!=v, k, !k, separated by commas), term by term as the bundle's generator writes it.
*/}}
{{- define "wlmap.selectorExpression" -}}
{{- $labels := "variables.namespaceLabels" -}}
{{- $terms := list -}}
{{- range $part := splitList "," . -}}
{{- $part = trim $part -}}
{{- if $part -}}
{{- $key := $part -}}{{- $value := "" -}}{{- $op := "exists" -}}
{{- if contains "!=" $part -}}
{{- $kv := splitn "!=" 2 $part -}}{{- $key = trim $kv._0 -}}{{- $value = trim $kv._1 -}}{{- $op = "!=" -}}
{{- else if contains "=" $part -}}
{{- $kv := splitn "=" 2 (replace "==" "=" $part) -}}{{- $key = trim $kv._0 -}}{{- $value = trim $kv._1 -}}{{- $op = "=" -}}
{{- else if hasPrefix "!" $part -}}
{{- $key = trim (trimPrefix "!" $part) -}}{{- $op = "!exists" -}}
{{- end -}}
{{- if not (regexMatch "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$" $key) -}}
{{- fail (printf "namespaces.selector: %q has no valid label key (expected k=v, k!=v, k or !k, separated by commas)" $part) -}}
{{- end -}}
{{- if not (regexMatch "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$" $value) -}}
{{- fail (printf "namespaces.selector: %q has no valid label value (letters, digits, '-', '_', '.', at most 63)" $part) -}}
{{- end -}}
{{- $k := printf "'%s'" $key -}}{{- $v := printf "'%s'" $value -}}
{{- if eq $op "=" -}}
{{- $terms = append $terms (printf "(%s in %s && %s[%s] == %s)" $k $labels $labels $k $v) -}}
{{- else if eq $op "!=" -}}
{{- $terms = append $terms (printf "(!(%s in %s) || %s[%s] != %s)" $k $labels $labels $k $v) -}}
{{- else if eq $op "exists" -}}
{{- $terms = append $terms (printf "%s in %s" $k $labels) -}}
{{- else -}}
{{- $terms = append $terms (printf "!(%s in %s)" $k $labels) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $terms }}{{ join " && " $terms }}{{ else }}true{{ end -}}
{{- end -}}

{{/*
The admission policy's test of a write's namespace: one of the listed namespaces (and
matching the selector when one is given too), else matching the selector (its default
the second argument). Called with (list $ DEFAULT_SELECTOR).
*/}}
{{- define "wlmap.served" -}}
{{- $root := index . 0 -}}
{{- $listed := include "wlmap.namespaces" $root -}}
{{- $selector := trim ($root.Values.namespaces.selector | default "") -}}
{{- if $listed -}}
{{- $quoted := list -}}
{{- range splitList "," $listed }}{{ $quoted = append $quoted (printf "'%s'" .) }}{{ end -}}
request.namespace in [{{ join ", " $quoted }}]
{{- if $selector }} && {{ include "wlmap.selectorExpression" $selector }}{{ end -}}
{{- else -}}
{{- include "wlmap.selectorExpression" ($selector | default (index . 1)) -}}
{{- end -}}
{{- end -}}

{{/*
The arguments that give the exporter the operator's namespaces: the listed ones (its
RBAC reaches no others), else those the selector picks (the exporter takes one or the
other).
*/}}
{{- define "wlmap.exporterScope" -}}
{{- with include "wlmap.namespaces" . }}
- --namespaces
- {{ . | quote }}
{{- else }}
{{- with .Values.namespaces.selector }}
- --namespace-selector
- {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}
