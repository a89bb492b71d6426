/** The app proper, loaded by the small entry (main.ts) once the first requests have left. */
import { mount } from 'svelte';
import App from './App.svelte';
import { connect, initialNetwork, networkAtStart } from './lib/connection.ts';
import { startRouter } from './lib/router.ts';

startRouter();
const network = networkAtStart();
if (network) void connect(network);
else void initialNetwork().then(connect);
mount(App, { target: document.getElementById('app')! });
