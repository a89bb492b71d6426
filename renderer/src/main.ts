import { mount } from 'svelte';
import { get } from 'svelte/store';
import App from './App.svelte';
import './app.css';
import { connect, initialNetwork, networkAtStart, networkFromUrl } from './lib/connection.ts';
import { startEarlyReads } from './lib/early-reads.ts';
import { thisNode } from './lib/network.ts';
import { matchRoute, path, startRouter } from './lib/router.ts';

startRouter();
// The first requests leave before the app mounts (lib/early.ts): isthmus_getNodeInfo and the first
// page's own reads, so their round trips overlap the mount and each other. They go to the network known
// without reading storage (whose first read takes ~20 ms), ?rpc=URL or this node; when the one chosen
// last time is another, nothing takes them.
startEarlyReads(networkFromUrl() ?? thisNode(), matchRoute(get(path)));
const network = networkAtStart();
if (network) void connect(network);
else void initialNetwork().then(connect);
mount(App, { target: document.getElementById('app')! });
