// host web: MCP Apps frames (filled in when the runtime brokers apps).
'use strict';
