"""The Python MCP SDK's stdio client against `segue mcp` (MCPTests): starts SEGUE mcp in FOLDER,
calls every tool as an agent would, and prints one JSON object of what it got back."""
import asyncio
import base64
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(segue, folder):
    got = {}
    async with stdio_client(StdioServerParameters(command=segue, args=["mcp"], cwd=folder)) as (read, write):
        async with ClientSession(read, write) as session:
            started = await session.initialize()
            got["server"] = started.server_info.name
            got["protocol"] = started.protocol_version
            got["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)

            def said(result):
                return {"error": bool(result.is_error), "text": "\n".join(c.text for c in result.content if c.type == "text")}

            got["list"] = said(await session.call_tool("list_transitions", {}))
            got["describe"] = said(await session.call_tool("describe_transition", {"name": "slide"}))
            got["unknown_transition"] = said(await session.call_tool("describe_transition", {"name": "slyde"}))
            got["valid"] = said(await session.call_tool("validate_story", {"story": "story.yaml"}))
            got["invalid"] = said(await session.call_tool("validate_story", {"story": "broken.yaml"}))
            progress = []

            async def report(done, total, message):
                progress.append([done, total])

            got["render"] = said(await session.call_tool("render", {"story": "story.yaml", "output": "out.mp4"}, progress_callback=report))
            got["progress"] = progress
            got["again"] = said(await session.call_tool("render", {"story": "story.yaml", "output": "out.mp4"}))
            frame = await session.call_tool("preview_frame", {"story": "story.yaml", "frame": 12, "set": ["canvas.size=[64,96]"]})
            image = [c for c in frame.content if c.type == "image"]
            got["frame"] = {"error": bool(frame.is_error), "mime": image[0].mime_type if image else None,
                            "png": base64.b64decode(image[0].data)[:8].hex() if image else None}
            if image:
                with open(f"{folder}/frame.png", "wb") as f:
                    f.write(base64.b64decode(image[0].data))
            got["beats"] = said(await session.call_tool("beats", {"file": "clicks.wav"}))
            try:
                await session.call_tool("no_such_tool", {})
                got["no_tool"] = "answered"
            except Exception as e:  # a protocol error, as the SDK raises it
                got["no_tool"] = str(e)
            got["after"] = said(await session.call_tool("list_transitions", {}))["error"]
    print(json.dumps(got))


asyncio.run(main(sys.argv[1], sys.argv[2]))
