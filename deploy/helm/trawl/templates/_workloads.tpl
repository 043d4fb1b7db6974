{{/*
One Deployment per service, all from the same image entry point:
`node dist/services/<name>/src/main.js`. Call with (dict "root" $ "name" "fetcher").
The gateway serves the API and its probes on `port`; every service (the gateway too)
serves /healthz, /readyz and the Prometheus /metrics on healthPort (HEALTH_PORT).
*/}}
{{- define "trawl.deployment" -}}
{{- $root := .root }}
{{- $name := .name }}
{{- $svc := index $root.Values.services $name }}
{{- if $svc.enabled }}
{{- $isGateway := eq $name "gateway" }}
{{- $isFetcher := eq $name "fetcher" }}
{{- $hpa := $svc.autoscaling | default (dict) }}
{{- $image := $root.Values.image }}
{{- if $isFetcher }}
{{- $image = $root.Values.fetcherImage }}
{{- end }}
{{- $probePort := "health" }}
{{- if $isGateway }}
{{- $probePort = "http" }}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "trawl.componentName" (dict "root" $root "name" $name) }}
  labels:
    {{- include "trawl.labels" (dict "root" $root "component" $name) | nindent 4 }}
spec:
  {{- if not $hpa.enabled }}
  replicas: {{ $svc.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "trawl.selectorLabels" (dict "root" $root "component" $name) | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # Start the new pod before stopping an old one: capacity never dips on a rollout.
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "trawl.selectorLabels" (dict "root" $root "component" $name) | nindent 8 }}
      annotations:
        # Roll the pods when the shared configuration or the chart's Secret changes.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        checksum/secret: {{ include "trawl.secretData" $root | sha256sum }}
        {{- if $root.Values.metrics.annotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $root.Values.healthPort | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "trawl.serviceAccountName" $root }}
      # The services never call the Kubernetes API.
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $svc.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- if $isGateway }}
      initContainers:
        # Creates the bootstrap API keys in the event log (idempotent), then exits.
        - name: bootstrap-keys
          image: {{ include "trawl.image" (dict "root" $root "image" $image) | quote }}
          imagePullPolicy: {{ $image.pullPolicy }}
          args:
            - dist/deploy/bootstrap-keys.js
          envFrom:
            - configMapRef:
                name: {{ include "trawl.componentName" (dict "root" $root "name" "config") }}
          env:
            - name: BOOTSTRAP_API_KEYS
              valueFrom:
                secretKeyRef:
                  name: {{ include "trawl.apiKeysSecretName" $root }}
                  key: {{ $root.Values.apiKeys.existingSecretKey }}
            {{- with $root.Values.config.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      {{- end }}
      containers:
        - name: {{ $name }}
          image: {{ include "trawl.image" (dict "root" $root "image" $image) | quote }}
          imagePullPolicy: {{ $image.pullPolicy }}
          args:
            {{- range $svc.nodeFlags }}
            - {{ . | quote }}
            {{- end }}
            - dist/services/{{ $name }}/src/main.js
          ports:
            {{- if $isGateway }}
            - name: http
              containerPort: {{ $svc.port }}
              protocol: TCP
            {{- end }}
            - name: health
              containerPort: {{ $root.Values.healthPort }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "trawl.componentName" (dict "root" $root "name" "config") }}
          env:
            # Writable home on a read-only root: Chromium and fontconfig keep caches there.
            - name: HOME
              value: /tmp
            {{- if $isGateway }}
            - name: PORT
              value: {{ $svc.port | quote }}
            {{- end }}
            - name: HEALTH_PORT
              value: {{ $root.Values.healthPort | quote }}
            # Unique among live pods and kept when the container restarts in its pod: the
            # projector takes back its own partition leases at once (INSTANCE_ID).
            - name: INSTANCE_ID
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- if $isFetcher }}
            - name: FETCHER_CONCURRENCY
              value: {{ $svc.concurrency | quote }}
            {{- end }}
            {{- if eq $name "transformer" }}
            - name: TRANSFORMER_CONCURRENCY
              value: {{ $svc.concurrency | quote }}
            - name: TRANSFORMER_SEMI_SPACE_MB
              value: {{ $svc.semiSpaceMb | quote }}
            # The main thread's too (a process flag overrides a worker's own limit, so they agree).
            - name: NODE_OPTIONS
              value: "--max-semi-space-size=$(TRANSFORMER_SEMI_SPACE_MB)"
            {{- end }}
            # Every service gets the MongoDB URL: one without it would silently fall back
            # to a private embedded store.
            - name: MONGODB_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "trawl.mongodbSecretName" $root }}
                  key: {{ $root.Values.mongodb.existingSecretKey }}
            {{- if and (has $name (list "gateway" "webhook-dispatcher")) (or $root.Values.webhooks.signingSecret $root.Values.webhooks.existingSecret) }}
            - name: WEBHOOK_SIGNING_SECRET
              valueFrom:
                secretKeyRef:
                  name: {{ include "trawl.webhooksSecretName" $root }}
                  key: {{ $root.Values.webhooks.existingSecretKey }}
            {{- end }}
            {{- with $root.Values.config.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $svc.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          # Startup covers connecting to NATS, creating streams and (fetcher) launching
          # Chromium; liveness only restarts a process that stopped answering at all.
          startupProbe:
            httpGet:
              path: /healthz
              port: {{ $probePort }}
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet:
              path: /healthz
              port: {{ $probePort }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: {{ $probePort }}
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- if $isGateway }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ $svc.preStopSleepSeconds | quote }}]
          {{- end }}
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            - name: data
              mountPath: {{ $root.Values.config.dataDir }}
            {{- if $isFetcher }}
            - name: dshm
              mountPath: /dev/shm
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        - name: data
          emptyDir: {}
        {{- if $isFetcher }}
        # Chromium's shared memory; memory-backed, so it counts against the pod's limit.
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: {{ $svc.shmSizeLimit }}
        {{- end }}
      {{- with include "trawl.placement" (dict "root" $root "svc" $svc) }}
      {{- . | trim | nindent 6 }}
      {{- end }}
{{- end }}
{{- end }}

{{/* Optional CPU-based HorizontalPodAutoscaler for a service. */}}
{{- define "trawl.hpa" -}}
{{- $root := .root }}
{{- $svc := index $root.Values.services .name }}
{{- $hpa := $svc.autoscaling | default (dict) }}
{{- if and $svc.enabled $hpa.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "trawl.componentName" (dict "root" $root "name" .name) }}
  labels:
    {{- include "trawl.labels" (dict "root" $root "component" .name) | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "trawl.componentName" (dict "root" $root "name" .name) }}
  minReplicas: {{ $hpa.minReplicas }}
  maxReplicas: {{ $hpa.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $hpa.targetCPUUtilizationPercentage }}
  behavior:
    # Scaling down stops pods that may hold in-flight pages: do it slowly.
    scaleDown:
      stabilizationWindowSeconds: 300
{{- end }}
{{- end }}

{{/* PodDisruptionBudget, only when more than one pod can run (else it blocks drains). */}}
{{- define "trawl.pdb" -}}
{{- $root := .root }}
{{- $svc := index $root.Values.services .name }}
{{- $hpa := $svc.autoscaling | default (dict) }}
{{- $pdb := $svc.pdb | default (dict) }}
{{- if and $svc.enabled $pdb.enabled (or $hpa.enabled (gt (int $svc.replicas) 1)) }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "trawl.componentName" (dict "root" $root "name" .name) }}
  labels:
    {{- include "trawl.labels" (dict "root" $root "component" .name) | nindent 4 }}
spec:
  minAvailable: {{ $pdb.minAvailable }}
  selector:
    matchLabels:
      {{- include "trawl.selectorLabels" (dict "root" $root "component" .name) | nindent 6 }}
{{- end }}
{{- end }}
