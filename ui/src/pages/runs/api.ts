// The page's door to the engine (mocked as a whole in the page's tests).
export { routeIpc, runsEvents, runsIpc } from "../../ipc";
