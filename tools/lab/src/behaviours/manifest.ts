/**
 * A cluster file for program tests (`--file`): node-a (podCIDR 198.18.1.0/24, 198.18.255.1) and a
 * NodePort Service `web` (198.19.0.10:80, NodePort 30080) with one ready endpoint on node-a.
 */
export function webManifest(endpoint: string): string {
  return `apiVersion: v1
kind: Node
metadata: {name: node-a}
spec: {podCIDRs: [198.18.1.0/24]}
status: {addresses: [{type: InternalIP, address: 198.18.255.1}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {type: NodePort, clusterIP: 198.19.0.10, clusterIPs: [198.19.0.10], ipFamilies: [IPv4], ports: [{port: 80, targetPort: 8080, nodePort: 30080, protocol: TCP}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-v4, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{port: 8080, protocol: TCP, name: ""}]
endpoints: [{addresses: [${endpoint}], nodeName: node-a, conditions: {ready: true}}]
`;
}
