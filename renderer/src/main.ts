/**
 * The explorer's entry, kept small: it sends the first requests (lib/early.ts) — isthmus_getNodeInfo
 * and the first page's own reads — and only then loads the app's chunk, so their round trips overlap
 * the app's download, compiling and mounting instead of following them. They go to the network known
 * without reading storage (whose first read takes ~20 ms), ?rpc=URL or this node; when the one chosen
 * last time is another, nothing takes them.
 */
import './app.css';
import { startEarlyReads } from './lib/early-reads.ts';
import { networkFromUrl, thisNode } from './lib/network.ts';
import { currentPath, matchRoute } from './lib/routes.ts';

startEarlyReads(networkFromUrl() ?? thisNode(), matchRoute(currentPath()));
void import('./app.ts');
