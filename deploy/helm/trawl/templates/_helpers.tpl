{{/*
Names and labels. Names are cut at 63 characters: Service names are DNS labels.
*/}}
{{- define "trawl.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "trawl.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one component: (dict "root" $ "name" "fetcher") */}}
{{- define "trawl.componentName" -}}
{{- printf "%s-%s" (include "trawl.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels: (dict "root" $ "component" "gateway"); component may be empty. */}}
{{- define "trawl.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "trawl.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: trawl
{{- end }}

{{- define "trawl.selectorLabels" -}}
app.kubernetes.io/name: {{ include "trawl.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{- define "trawl.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "trawl.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Image reference: (dict "root" $ "image" .Values.image) */}}
{{- define "trawl.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag | toString) }}
{{- end }}

{{/*
Where the services find their dependencies. Secrets: the chart's own Secret holds what
was given inline; an existing Secret named in values wins.
*/}}
{{- define "trawl.natsUrl" -}}
{{- if .Values.nats.enabled }}
{{- printf "nats://%s:4222" (include "trawl.componentName" (dict "root" . "name" "nats")) }}
{{- else }}
{{- required "nats.url is required when nats.enabled is false" .Values.nats.url }}
{{- end }}
{{- end }}

{{- define "trawl.inChartMongodbUrl" -}}
{{- printf "mongodb://%s:27017/%s" (include "trawl.componentName" (dict "root" . "name" "mongodb")) .Values.mongodb.database }}
{{- end }}

{{- define "trawl.secretName" -}}
{{- include "trawl.fullname" . }}
{{- end }}

{{/* Key-value pairs the chart's own Secret holds, as YAML (empty when none). */}}
{{- define "trawl.secretData" -}}
{{- $data := dict }}
{{- if and .Values.apiKeys.bootstrap (not .Values.apiKeys.existingSecret) }}
{{- $_ := set $data .Values.apiKeys.existingSecretKey .Values.apiKeys.bootstrap }}
{{- end }}
{{- if not .Values.mongodb.existingSecret }}
{{- if .Values.mongodb.enabled }}
{{- $_ := set $data .Values.mongodb.existingSecretKey (include "trawl.inChartMongodbUrl" .) }}
{{- else if .Values.mongodb.url }}
{{- $_ := set $data .Values.mongodb.existingSecretKey .Values.mongodb.url }}
{{- end }}
{{- end }}
{{- if and .Values.nats.enabled (gt (int .Values.nats.streamReplicas) (int .Values.nats.replicas)) }}
{{- fail (printf "nats.streamReplicas (%d) cannot exceed nats.replicas (%d): JetStream keeps each copy on its own server" (int .Values.nats.streamReplicas) (int .Values.nats.replicas)) }}
{{- end }}
{{- if and .Values.webhooks.signingSecret (not .Values.webhooks.existingSecret) }}
{{- $_ := set $data .Values.webhooks.existingSecretKey .Values.webhooks.signingSecret }}
{{- end }}
{{- if $data }}
{{- toYaml $data }}
{{- end }}
{{- end }}

{{- define "trawl.apiKeysSecretName" -}}
{{- default (include "trawl.secretName" .) .Values.apiKeys.existingSecret }}
{{- end }}

{{- define "trawl.webhooksSecretName" -}}
{{- default (include "trawl.secretName" .) .Values.webhooks.existingSecret }}
{{- end }}

{{- define "trawl.mongodbSecretName" -}}
{{- default (include "trawl.secretName" .) .Values.mongodb.existingSecret }}
{{- end }}

{{/* Fails the render with a message naming the value to set. */}}
{{- define "trawl.validate" -}}
{{- if not (or .Values.apiKeys.bootstrap .Values.apiKeys.existingSecret) }}
{{- fail "set apiKeys.bootstrap (key:plan,...) or apiKeys.existingSecret: without a key nobody can call the API" }}
{{- end }}
{{- if not (or .Values.mongodb.enabled .Values.mongodb.url .Values.mongodb.existingSecret) }}
{{- fail "set mongodb.url, mongodb.existingSecret or mongodb.enabled=true: the read models must be shared by every pod" }}
{{- end }}
{{- if not (or .Values.nats.enabled .Values.nats.url) }}
{{- fail "set nats.url or nats.enabled=true" }}
{{- end }}
{{- if and .Values.nats.enabled (gt (int .Values.nats.streamReplicas) (int .Values.nats.replicas)) }}
{{- fail (printf "nats.streamReplicas (%d) cannot exceed nats.replicas (%d): JetStream keeps each copy on its own server" (int .Values.nats.streamReplicas) (int .Values.nats.replicas)) }}
{{- end }}
{{- if and .Values.webhooks.signingSecret (lt (len .Values.webhooks.signingSecret) 32) }}
{{- fail "webhooks.signingSecret must be at least 32 characters" }}
{{- end }}
{{- range $name, $svc := .Values.services }}
{{- if not (has $name (list "gateway" "fetcher" "transformer" "projector" "crawler-frontier" "webhook-dispatcher")) }}
{{- fail (printf "services.%s: unknown service (known: gateway, fetcher, transformer, projector, crawler-frontier, webhook-dispatcher)" $name) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Pod placement: a service's own setting wins over the global one. (dict "root" $ "svc" $svc) */}}
{{- define "trawl.placement" -}}
{{- with (default .root.Values.nodeSelector .svc.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (default .root.Values.tolerations .svc.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (default .root.Values.affinity .svc.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
