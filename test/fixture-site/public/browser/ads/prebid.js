// Stands in for an ad network's script: when it runs, the page shows its marker.
document.getElementById('ad-slot').textContent = 'AD_SCRIPT_RAN sponsored content';
