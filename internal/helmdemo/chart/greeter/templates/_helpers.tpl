{{/* greeter.chart is the helm.sh/chart label: name-version, "+" made "_". */}}
{{- define "greeter.chart" -}}
{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* greeter.selectorLabels select the release's pods. */}}
{{- define "greeter.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* greeter.labels are the standard labels every object carries. */}}
{{- define "greeter.labels" -}}
{{ include "greeter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ include "greeter.chart" . }}
{{- end }}
