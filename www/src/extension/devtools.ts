// The extension's DevTools page: adds the "stepline" tab to DevTools. Its panel
// (panel.html) reads the inspected tab from chrome.devtools.inspectedWindow.
chrome.devtools.panels.create('stepline', '', 'panel.html');
