// Validates rendered manifests against the Kubernetes OpenAPI schemas that the
// kubernetes-models package ships (types, required fields, quantities, enums): the
// offline stand-in for `helm lint` / kubeconform, neither of which can be installed here.
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';

type Model = new (data: any) => { validate(): void };

const MODELS: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** Throws with the resource named when the manifest is not a valid object of its kind. */
export function validateManifest(manifest: Record<string, any>): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const model = MODELS[key];
  if (!model) throw new Error(`no schema for ${key} (${manifest.metadata?.name}): add it to k8s-schema.ts`);
  try {
    new model(manifest).validate();
  } catch (err) {
    throw new Error(`${key} ${manifest.metadata?.name}: ${(err as Error).message}`);
  }
}
