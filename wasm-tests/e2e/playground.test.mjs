// End-to-end: the built playground in Chromium — the default example's table, live
// re-evaluation after replacing the YAML, and the error panel for broken YAML.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { start, SCREENSHOTS } from './browser.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

async function rows(page) {
  return page.$$eval('table.clusters tbody tr', (trs) => trs.map((tr) =>
    [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent.trim()).join(' ')));
}

const EDITOR = '#policy-editor';

test('default example shows picked clusters first, then filtered ones with reasons', async () => {
  const page = await env.context.newPage();
  await page.goto(env.base + '/');
  await page.waitForSelector('table.clusters tbody tr');
  assert.deepEqual(await rows(page), [
    'aks-eastus-prod picked', 'aks-westeurope-prod picked',
    'aks-eastus-dev filtered', 'aks-westus-prod filtered',
  ]);
  const reason = await page.textContent('table.clusters tbody tr.filtered td:nth-child(3)');
  assert.equal(reason.trim(), 'ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms');
  assert.match(await page.textContent('.condition'), /found 2 cluster\(s\)/);
  await page.screenshot({ path: join(SCREENSHOTS, 'placement-default.png'), fullPage: true });
  await page.close();
});

test('replacing the YAML re-evaluates as the user types', async () => {
  const page = await env.context.newPage();
  await page.goto(env.base + '/');
  await page.waitForSelector('table.clusters tbody tr');
  const yaml = [
    'apiVersion: cluster.kubernetes-fleet.io/v1', 'kind: MemberCluster',
    'metadata: {name: blue, labels: {tier: gold}}', '---',
    'apiVersion: cluster.kubernetes-fleet.io/v1beta1', 'kind: MemberCluster',
    'metadata: {name: green, labels: {tier: silver}}', '---',
    'apiVersion: placement.kubernetes-fleet.io/v1', 'kind: ClusterResourcePlacement',
    'metadata: {name: gold-only}', 'spec:', '  policy:', '    placementType: PickAll',
    '    affinity:', '      clusterAffinity:', '        requiredDuringSchedulingIgnoredDuringExecution:',
    '          clusterSelectorTerms:', '          - labelSelector:', '              matchLabels: {tier: gold}', '',
  ].join('\n');
  await page.fill(EDITOR, yaml);
  await page.waitForFunction(() => document.querySelector('.placement h2')?.textContent.includes('gold-only'));
  assert.deepEqual(await rows(page), ['blue picked', 'green filtered']);
  await page.close();
});

test('broken YAML shows the error panel with line:column', async () => {
  const page = await env.context.newPage();
  await page.goto(env.base + '/');
  await page.waitForSelector('table.clusters tbody tr');
  await page.fill(EDITOR, 'apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: [oops}\n');
  await page.waitForSelector('#diagnostics li.error');
  const loc = await page.textContent('#diagnostics li.error .location');
  assert.equal(loc.trim(), '3:23');
  assert.match(await page.textContent('#diagnostics li.error .message'), /^invalid YAML: /);
  await page.screenshot({ path: join(SCREENSHOTS, 'placement-error.png'), fullPage: true });
  await page.close();
});
