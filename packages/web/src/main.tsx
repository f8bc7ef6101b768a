import { render } from 'preact'
import { Workbox } from 'workbox-window'
import { App } from './app.tsx'
import './styles.css'

render(<App />, document.getElementById('root')!)

// The service worker precaches the shell and PGlite's files, so the app opens with the network off.
// Any build registers it (whatever NODE_ENV was), Vite's dev server (with hot reload) does not.
if ('serviceWorker' in navigator && !import.meta.hot) {
  void new Workbox(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL }).register()
}
