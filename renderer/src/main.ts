import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { connect, initialNetwork } from './lib/connection.ts';
import { startRouter } from './lib/router.ts';

startRouter();
// Connecting starts before the app mounts, so the first request is in flight while the page lays out.
void initialNetwork().then(connect);
mount(App, { target: document.getElementById('app')! });
